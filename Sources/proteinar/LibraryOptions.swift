import ArgumentParser
import Foundation
import Logging
import MoleculeLibrary
import PDBArchive
import ProteinARServer

/// Where the library is and which archives to ask: shared by serve, fetch, search and library.
struct LibraryOptions: ParsableArguments {
    @Option(help: "Folder for the SQLite library (created on first use).") var dataDir = "proteinar-data"
    @Option(help: "postgres://user:password@host:port/database to use PostgreSQL instead of SQLite.") var databaseURL: String?
    @Option(help: "Base URL standing in for every archive service (RCSB files, models, search, data; AlphaFold DB), e.g. a local mirror.")
    var rcsbURL: String?
    @Option(help: "Largest model cache, in megabytes (least recently used models go first).") var cacheMB = 512
    @Flag(help: "SQLite: sync to disk at every commit, so acknowledged room operations also survive a power cut (slower); by default commits survive the server being killed.")
    var syncEveryCommit = false

    func serverConfiguration() throws -> ServerConfiguration {
        var c = ServerConfiguration()
        c.dataDirectory = dataDir
        c.databaseURL = databaseURL
        c.sqliteSyncEveryCommit = syncEveryCommit
        if let rcsbURL {
            guard let u = URL(string: rcsbURL), u.scheme == "http" || u.scheme == "https", u.host != nil else {
                throw CLIError("--rcsb-url '\(rcsbURL)': expected an http(s) URL")
            }
            c.endpoints = ArchiveEndpoints(allAt: rcsbURL)
        }
        guard cacheMB >= 1 else { throw CLIError("--cache-mb must be at least 1") }
        c.cacheLimitBytes = cacheMB << 20
        return c
    }

    /// The library for one command (the starter set is added to an empty library as the server would).
    func open() async throws -> LibraryService {
        try await ProteinARServer.openLibrary(try serverConfiguration(), logger: Logger(label: "proteinar"))
    }
}

/// Turns service errors into one clear line and a non-zero exit.
func cliFailure(_ error: any Error) -> any Error {
    if error is CLIError || error is ExitCode || error is CleanExit { return error }
    return CLIError("\(error)")
}
