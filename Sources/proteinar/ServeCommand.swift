import ArgumentParser
import Foundation
import Hummingbird
import Logging
import MoleculeLibrary
import ProteinARServer
import ServiceLifecycle

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the library, its models and the web app over HTTP.",
        discussion: "On first start the data folder is created with a SQLite library holding the starter molecules.")

    @Option(help: "Port to listen on (0 picks a free one).") var port = 8080
    @Option(help: "Address to listen on (0.0.0.0: every interface, so phones on the network can connect).") var host = "0.0.0.0"
    @Option(help: "The address phones open this server at (https://proteinar.example.org), for the desktop page's QR code; by default the computer's network address.")
    var publicUrl: String?
    @Option(help: "The map's tile server, as a URL template (https://tile.openstreetmap.org/{z}/{x}/{y}.png): tiles are fetched by this server, kept, and sent from its own origin; without it the map lists rooms by distance.")
    var tileServer: String?
    @Option(help: "Whose map tiles they are, shown on the map.") var tileAttribution = "© OpenStreetMap contributors"
    @Option(help: "Largest upload, in megabytes.") var maxUploadMB = 64
    @Option(help: "Serve the web app from this folder instead of the bundled copy.") var webRoot: String?
    @Flag(inversion: .prefixedNo, help: "Fill an empty library with the bundled starter molecules.") var starter = true
    @OptionGroup var library: LibraryOptions
    @OptionGroup(title: "Who may do what, and how much (docs/security.md)") var limits: ServeLimitOptions

    func run() async throws {
        var configuration = try library.serverConfiguration()
        guard (0...65535).contains(port) else { throw CLIError("--port \(port): expected 0 to 65535") }
        guard maxUploadMB >= 1 else { throw CLIError("--max-upload-mb must be at least 1") }
        configuration.port = port
        configuration.host = host
        if let publicUrl {
            guard let url = URL(string: publicUrl), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
                throw CLIError("--public-url '\(publicUrl.prefix(80))': expected an address such as https://proteinar.example.org")
            }
            configuration.publicURL = publicUrl.hasSuffix("/") ? String(publicUrl.dropLast()) : publicUrl
        }
        if let tileServer {
            guard tileServer.hasPrefix("http://") || tileServer.hasPrefix("https://"),
                  ["{z}", "{x}", "{y}"].allSatisfy(tileServer.contains) else {
                throw CLIError("--tile-server '\(tileServer.prefix(80))': expected a URL template with {z}, {x} and {y}, such as https://tile.openstreetmap.org/{z}/{x}/{y}.png")
            }
            configuration.tileServer = tileServer
            configuration.tileAttribution = tileAttribution
        }
        configuration.maxUploadBytes = maxUploadMB << 20
        configuration.webRoot = webRoot
        configuration.installStarterLibrary = starter
        try limits.apply(to: &configuration)
        var logger = Logger(label: "proteinar")
        logger.logLevel = .info
        let service: LibraryService
        do { service = try await ProteinARServer.openLibrary(configuration, logger: logger) } catch { throw cliFailure(error) }
        let host = self.host, location = service.store.location
        let scheme = configuration.tlsCertificate == nil ? "http" : "https"
        let app: any Service
        do {
            app = try ProteinARServer.buildApplication(service: service, configuration: configuration, logger: logger) { port in
                // One line on standard output that scripts (and tests) wait for.
                FileHandle.standardOutput.write(Data("proteinar serve: listening on \(scheme)://\(host):\(port) (library: \(location))\n".utf8))
            }
        } catch { throw cliFailure(error) }
        // SIGTERM ends the server within 10 s: connections get 5 s to finish, then everything is cancelled.
        var groupConfiguration = ServiceGroupConfiguration(services: [app], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        groupConfiguration.maximumGracefulShutdownDuration = .seconds(5)
        groupConfiguration.maximumCancellationDuration = .seconds(3)
        try await ServiceGroup(configuration: groupConfiguration).run()
    }
}


/// The limits of `proteinar serve`, each with the default docs/security.md gives.
struct ServeLimitOptions: ParsableArguments {
    @Flag(help: "Anyone may add to the library (RCSB fetches, uploads, designs), not only signed-in people: for a private classroom server.")
    var openLibrary = false
    @Flag(inversion: .prefixedNo, help: "Live sockets compress messages of 2 KiB or more (permessage-deflate, when the browser offers it).")
    var socketCompression = true
    @Option(help: "Operations of each room's history kept in its log at least (0: all); older ones are folded into a snapshot.")
    var roomHistory = 100_000
    @Option(help: "Storage of one account's uploads and designs, in megabytes.") var accountStorageMB = 100
    @Option(help: "Storage of the whole library's files, in megabytes.") var libraryStorageMB = 4096
    @Option(help: "Uploads per hour, per account (per address in an open library).") var uploadsPerHour = 30
    @Option(help: "Conversions waiting for a worker before new ones get 503.") var waitingConversions = 32
    @Option(help: "Conversions one client may have running at once; twice as many more wait their turn, beyond that 429.") var conversionsPerClient = 4
    @Option(help: "Conversions running or waiting from one client address, all its clients together, before 429 (a class of 40 phones behind one address).")
    var conversionsPerAddress = 48
    @Option(help: "Anonymous client ids (cookies) one address may be handed per hour; beyond that its cookie-less requests share one share.")
    var clientIdsPerAddressPerHour = 600
    @Option(help: "New entries one client may open from the archives per minute (entries the server holds cost nothing).") var opensPerMinute = 20
    @Option(help: "New entries all clients of one address may open from the archives per minute.") var opensPerAddressPerMinute = 120
    @Option(help: "Archive downloads at once, in all (eight times as many wait, beyond that 503).") var archiveDownloads = 4
    @Option(help: "Searches one client may send to the RCSB per minute (answers are kept a minute and cost nothing).") var searchesPerMinute = 20
    @Option(help: "Searches all clients of one address may send to the RCSB per minute.") var searchesPerAddressPerMinute = 120
    @Option(help: "The archive cache (entries opened without adding them to the library): megabytes of their files, least recently viewed out first.")
    var archiveCacheMB = 1024
    @Option(help: "Hours after which an archive-cache entry is checked against the archive when next opened.") var archiveRevalidateHours = 168
    @Option(help: "A reverse proxy's address whose X-Forwarded-For (or Forwarded) names the client; repeat for several. Its connections are not held to --connections-per-address.")
    var trustedProxy: [String] = []
    @Option(help: "Open connections in all.") var maxConnections = 512
    @Option(help: "Open connections per client address (a class of 40 phones, each browser opening up to 6).") var connectionsPerAddress = 256
    @Option(help: "Seconds a connection has to send its first request head.") var headerTimeout = 10
    @Option(help: "Seconds a kept-alive connection may sit idle.") var idleTimeout = 30
    @Option(help: "Longest request head, in kilobytes (longer gets 431).") var maxHeaderKB = 32
    @Option(help: "Live sockets per room.") var socketsPerRoom = 1_000
    @Option(help: "Live sockets per client address.") var socketsPerAddress = 100
    @Option(help: "Rooms one account may own.") var roomsPerAccount = 50
    @Option(help: "Registrations and sign-ins (password hashes) per client address per minute.") var bcryptPerMinute = 60
    @Option(help: "Room invitations one account may send per hour (a burst, then one every 36 s).") var invitationsPerHour = 100
    @Option(help: "Room invitations one account may send per day.") var invitationsPerDay = 500
    @Option(help: "Token that /metrics and /healthz?detail=true need (Authorization: Bearer TOKEN); without it /metrics is off.")
    var metricsToken: String?
    @Option(help: "PEM certificate (chain) to serve HTTPS with; needs --tls-key.") var tlsCert: String?
    @Option(help: "PEM private key of --tls-cert.") var tlsKey: String?

    func apply(to c: inout ServerConfiguration) throws {
        for (name, value) in [("--account-storage-mb", accountStorageMB), ("--library-storage-mb", libraryStorageMB),
                              ("--uploads-per-hour", uploadsPerHour), ("--waiting-conversions", waitingConversions),
                              ("--conversions-per-client", conversionsPerClient), ("--max-connections", maxConnections),
                              ("--connections-per-address", connectionsPerAddress), ("--header-timeout", headerTimeout),
                              ("--idle-timeout", idleTimeout), ("--max-header-kb", maxHeaderKB), ("--sockets-per-room", socketsPerRoom),
                              ("--sockets-per-address", socketsPerAddress), ("--rooms-per-account", roomsPerAccount),
                              ("--bcrypt-per-minute", bcryptPerMinute), ("--conversions-per-address", conversionsPerAddress),
                              ("--client-ids-per-address-per-hour", clientIdsPerAddressPerHour), ("--opens-per-minute", opensPerMinute),
                              ("--opens-per-address-per-minute", opensPerAddressPerMinute), ("--archive-downloads", archiveDownloads),
                              ("--archive-cache-mb", archiveCacheMB), ("--archive-revalidate-hours", archiveRevalidateHours),
                              ("--searches-per-minute", searchesPerMinute), ("--searches-per-address-per-minute", searchesPerAddressPerMinute),
                              ("--invitations-per-hour", invitationsPerHour), ("--invitations-per-day", invitationsPerDay)] where !(1...1_000_000).contains(value) {
            throw CLIError("\(name) \(value): expected 1 to 1000000")
        }
        if let metricsToken, metricsToken.count < 16 { throw CLIError("--metrics-token: at least 16 characters (it guards the server's figures)") }
        c.quota = StorageQuota(accountBytes: accountStorageMB << 20, libraryBytes: libraryStorageMB << 20)
        c.limits.openLibrary = openLibrary
        c.socketCompression = socketCompression
        guard roomHistory >= 0 else { throw CLIError("--room-history \(roomHistory): expected 0 (keep all) or more") }
        c.roomHistoryOperations = roomHistory
        c.limits.uploadsPerHour = uploadsPerHour
        c.limits.waitingConversions = waitingConversions
        c.limits.conversionsPerClient = conversionsPerClient
        c.limits.socketsPerRoom = socketsPerRoom
        c.limits.socketsPerAddress = socketsPerAddress
        c.limits.roomsPerAccount = roomsPerAccount
        c.limits.bcryptPerMinute = bcryptPerMinute
        c.limits.invitationsPerHour = invitationsPerHour
        c.limits.invitationsPerDay = invitationsPerDay
        c.limits.conversionsPerAddress = conversionsPerAddress
        c.limits.clientIDsPerAddressPerHour = clientIdsPerAddressPerHour
        c.limits.opensPerMinute = opensPerMinute
        c.limits.opensPerAddressPerMinute = opensPerAddressPerMinute
        c.limits.archiveDownloads = archiveDownloads
        c.limits.searchesPerMinute = searchesPerMinute
        c.limits.searchesPerAddressPerMinute = searchesPerAddressPerMinute
        c.archiveCache = ArchiveCachePolicy(limitBytes: archiveCacheMB << 20, revalidateAfter: TimeInterval(archiveRevalidateHours) * 3600)
        c.edge.trustedProxies = trustedProxy
        c.edge.maxConnections = maxConnections
        c.edge.connectionsPerAddress = connectionsPerAddress
        c.edge.headerTimeout = .seconds(Int64(headerTimeout))
        c.edge.idleTimeout = .seconds(Int64(idleTimeout))
        c.edge.maxHeaderBytes = maxHeaderKB << 10
        c.metricsToken = metricsToken
        c.tlsCertificate = tlsCert
        c.tlsKey = tlsKey
    }
}

/// `proteinar admin grant EMAIL`: makes an account an administrator (who may delete any molecule).
struct AdminCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "admin", abstract: "Administrators of a server's library.", subcommands: [Grant.self, Revoke.self])

    struct Grant: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Make the account with this e-mail an administrator.")
        @Argument(help: "The account's e-mail.") var email: String
        @OptionGroup var library: LibraryOptions
        func run() async throws { try await AdminCommand.set(email, true, library) }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Make the account with this e-mail an ordinary member again.")
        @Argument(help: "The account's e-mail.") var email: String
        @OptionGroup var library: LibraryOptions
        func run() async throws { try await AdminCommand.set(email, false, library) }
    }

    static func set(_ email: String, _ admin: Bool, _ library: LibraryOptions) async throws {
        var configuration = try library.serverConfiguration()
        configuration.installStarterLibrary = false
        let service: LibraryService
        do { service = try await ProteinARServer.openLibrary(configuration, logger: Logger(label: "proteinar")) } catch { throw cliFailure(error) }
        let address = email.trimmingCharacters(in: .whitespaces).lowercased()
        guard try await service.store.setAdministrator(email: address, admin) else {
            throw CLIError("no account has the e-mail \(address) in \(service.store.location)")
        }
        print("\(address) is \(admin ? "now an administrator" : "no longer an administrator") of \(service.store.location)")
    }
}
