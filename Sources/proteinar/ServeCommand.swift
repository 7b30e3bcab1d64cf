import ArgumentParser
import Foundation
import Logging
import MoleculeLibrary
import ProteinARServer

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the library, its models and the web app over HTTP.",
        discussion: "On first start the data folder is created with a SQLite library holding the starter molecules.")

    @Option(help: "Port to listen on (0 picks a free one).") var port = 8080
    @Option(help: "Address to listen on (0.0.0.0: every interface, so phones on the network can connect).") var host = "0.0.0.0"
    @Option(help: "Largest upload, in megabytes.") var maxUploadMB = 64
    @Option(help: "Serve the web app from this folder instead of the bundled copy.") var webRoot: String?
    @Flag(inversion: .prefixedNo, help: "Fill an empty library with the bundled starter molecules.") var starter = true
    @OptionGroup var library: LibraryOptions

    func run() async throws {
        var configuration = try library.serverConfiguration()
        guard (0...65535).contains(port) else { throw CLIError("--port \(port): expected 0 to 65535") }
        guard maxUploadMB >= 1 else { throw CLIError("--max-upload-mb must be at least 1") }
        configuration.port = port
        configuration.host = host
        configuration.maxUploadBytes = maxUploadMB << 20
        configuration.webRoot = webRoot
        configuration.installStarterLibrary = starter
        var logger = Logger(label: "proteinar")
        logger.logLevel = .info
        let service: LibraryService
        do { service = try await ProteinARServer.openLibrary(configuration, logger: logger) } catch { throw cliFailure(error) }
        let host = self.host, location = service.store.location
        let app = ProteinARServer.application(service: service, configuration: configuration, logger: logger) { port in
            // One line on standard output that scripts (and tests) wait for.
            FileHandle.standardOutput.write(Data("proteinar serve: listening on http://\(host):\(port) (library: \(location))\n".utf8))
        }
        try await app.runService()
    }
}

