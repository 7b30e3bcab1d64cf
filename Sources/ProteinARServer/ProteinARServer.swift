import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import HummingbirdWebSocket
import HummingbirdWSCompression
import Storage
import Logging
import Metrics
import MoleculeLibrary
import NIOSSL
import PDBArchive
import Prometheus
import RoomHost
import WebApp

/// How `proteinar serve` runs.
public struct ServerConfiguration: Sendable {
    /// 0.0.0.0 so that phones on the same network can open the web app.
    public var host = "0.0.0.0"
    /// 0 picks a free port (tests).
    public var port = 8080
    public var dataDirectory = "proteinar-data"
    /// `postgres://…` to share a library between servers; nil for SQLite in the data directory.
    public var databaseURL: String?
    /// SQLite: sync to disk at every commit (power-cut safe, slower) instead of at checkpoints
    /// (safe when the server process is killed).
    public var sqliteSyncEveryCommit = false
    public var endpoints = ArchiveEndpoints()
    public var retry = RetryPolicy()
    public var cacheLimitBytes = 512 << 20
    /// Models kept in memory, ready to send, besides the library's cache.
    public var hotCacheBytes = 128 << 20
    public var maxUploadBytes = 64 << 20
    public var installStarterLibrary = true
    /// Folder of the web app; nil serves the copy bundled with the server.
    public var webRoot: String?
    /// Libraries the web app loads from Debian's packages, each served at /vendor/NAME/ when its
    /// folder is there (scripts/tools/install-web-libraries.sh installs them): Leaflet for the map
    /// of rooms (libjs-leaflet), the QR code encoder for the desktop's "open on your phone"
    /// (node-qrcode-generator). Without one, the page says so and offers what it can instead.
    public var webLibraries = [
        "leaflet": "/usr/share/javascript/leaflet",
        "qrcode-generator": "/usr/share/javascript/qrcode-generator",
    ]
    /// How much each person and the whole library may keep.
    public var quota = StorageQuota()
    /// The archive cache: entries anyone opened, kept apart from the library.
    public var archiveCache = ArchiveCachePolicy()
    /// Who may do what and how much one client may cost (docs/security.md).
    public var limits = ServerLimits()
    public var edge = EdgeLimits()
    /// The token `/metrics` and `/healthz?detail=true` need (`Authorization: Bearer …`); nil: no metrics.
    public var metricsToken: String?
    /// PEM files to serve HTTPS with; nil: plain HTTP (behind a TLS proxy, or on a private network).
    /// The address phones reach this server at (a name, or the proxy's), for the desktop page's
    /// QR code; nil: the computer's network addresses (`PhoneAddress`).
    public var publicURL: String?
    /// The map tile server's URL template (`https://tile.openstreetmap.org/{z}/{x}/{y}.png`): tiles
    /// are fetched by this server and sent from its own origin (`MapTiles`); nil: no map tiles.
    public var tileServer: String?
    /// Whose tiles they are, shown on the map as the tile server's terms ask.
    public var tileAttribution = "© OpenStreetMap contributors"
    public var tlsCertificate: String?
    public var tlsKey: String?
    /// Live sockets may compress large messages (permessage-deflate, which browsers offer): a late
    /// joiner's snapshot shrinks several times; small ones (an operation, an ack) go as they are.
    public var socketCompression = true
    /// Operations of each room's history the log keeps at least (0: all); older ones are folded
    /// into the room's history base (docs/draw-together.md).
    public var roomHistoryOperations = 100_000
    public init() {}
}

/// Limits on what one person or client may ask of the server (each a `proteinar serve` option).
public struct ServerLimits: Sendable {
    /// Anyone may add to the library (a private classroom server); otherwise only signed-in people.
    public var openLibrary = false
    public var uploadsPerHour = 30
    /// Conversions waiting for a worker, in all, before `503`.
    public var waitingConversions = 32
    /// Conversions one client runs at once (as many again wait), before `429`.
    public var conversionsPerClient = 4
    /// Conversions running or waiting from one address, all its clients together, before `429`:
    /// room for a class of 40 phones behind one school address, not for one address to take the server.
    public var conversionsPerAddress = 48
    /// Anonymous client ids (`proteinar_client` cookies) one address may be handed in an hour.
    public var clientIDsPerAddressPerHour = 600
    /// New entries one client may open from the archives in a minute (entries the server holds cost nothing).
    public var opensPerMinute = 20
    /// New entries all the clients of one address may open in a minute.
    public var opensPerAddressPerMinute = 120
    /// Archive downloads at once, in all (eight times as many wait; beyond, `503`).
    public var archiveDownloads = 4
    /// Searches one client may send to the archive in a minute (answers kept a minute cost nothing).
    public var searchesPerMinute = 20
    /// Searches all the clients of one address may send to the archive in a minute.
    public var searchesPerAddressPerMinute = 120
    public var socketsPerRoom = 1_000
    public var socketsPerAddress = 100
    public var roomsPerAccount = 50
    /// Password hashes (registrations and sign-ins) per client address per minute.
    public var bcryptPerMinute = 60
    /// Room invitations one account may send in an hour (a burst, then one every 36 s).
    public var invitationsPerHour = 100
    /// Room invitations one account may send in a day.
    public var invitationsPerDay = 500
    public init() {}
}

public enum ProteinARServer {
    /// Opens (creating on first start) the library and fills an empty one with the starter set.
    public static func openLibrary(_ configuration: ServerConfiguration, logger: Logger) async throws -> LibraryService {
        let store: any LibraryStore
        if let url = configuration.databaseURL {
            store = try PostgresLibraryStore(url: url, cacheLimitBytes: configuration.cacheLimitBytes)
        } else {
            try FileManager.default.createDirectory(atPath: configuration.dataDirectory, withIntermediateDirectories: true)
            let path = (configuration.dataDirectory as NSString).appendingPathComponent("library.sqlite")
            store = try SQLiteLibraryStore(path: path, cacheLimitBytes: configuration.cacheLimitBytes,
                                           syncEveryCommit: configuration.sqliteSyncEveryCommit)
        }
        try await store.migrate()
        let service = LibraryService(store: store, archive: ArchiveClient(endpoints: configuration.endpoints, retry: configuration.retry),
                                     limiter: WorkLimiter(maxWaiting: configuration.limits.waitingConversions),
                                     maxUploadBytes: configuration.maxUploadBytes, hotCacheBytes: configuration.hotCacheBytes,
                                     quota: configuration.quota, archiveCache: configuration.archiveCache, logger: logger)
        if configuration.installStarterLibrary {
            let added = try await service.installStarterLibrary()
            if added > 0 { logger.info("library was empty: added \(added) starter molecules") }
        }
        return service
    }

    /// The HTTP application: API, metrics, health, and the web app's files at `/`.
    public static func application(service: LibraryService, configuration: ServerConfiguration, logger: Logger,
                                   onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }) throws -> some ApplicationProtocol {
        let registry = MetricsBootstrap.registry
        let router = Router(context: ServerContext.self)
        for proxy in configuration.edge.trustedProxies where TrustedProxies.address(proxy) == nil {
            throw ServerSetupError("--trusted-proxy '\(proxy.prefix(60))': expected an IP address such as 127.0.0.1 or ::1")
        }
        let proxies = TrustedProxies(configuration.edge.trustedProxies)
        router.add(middleware: ForwardedAddressMiddleware(proxies: proxies))
        router.add(middleware: BodyDeadlineMiddleware())
        router.add(middleware: SecurityHeadersMiddleware())
        router.add(middleware: CompressionMiddleware())
        router.add(middleware: MetricsMiddleware())
        router.add(middleware: AnonymousClientMiddleware(clients: AnonymousClients(idsPerAddressPerHour: configuration.limits.clientIDsPerAddressPerHour)))
        for middleware in WebAppFiles(root: webRoot(configuration)).middlewares(logger: logger) { router.add(middleware: middleware) }
        for (name, folder) in configuration.webLibraries.sorted(by: { $0.key < $1.key }) where FileManager.default.fileExists(atPath: folder) {
            router.add(middleware: FileMiddleware(folder, urlBasePath: "/vendor/\(name)", logger: logger))
        }
        // The library's store keeps accounts and room logs too; each part sees only its own protocol.
        let store = service.store
        let limits = configuration.limits
        let accounts = Accounts(store: store, rooms: RoomSummaries(rooms: store, accounts: store), invitations: store,
                                passwordHashes: RateLimiter(burst: limits.bcryptPerMinute, per: 60))
        let fairShare = FairShare(perClient: limits.conversionsPerClient, perAddress: limits.conversionsPerAddress)
        APIRoutes(service: service, accounts: accounts, limits: limits, fairShare: fairShare,
                  uploads: RateLimiter(burst: limits.uploadsPerHour, per: 3600), openings: ArchiveOpenings(limits: limits),
                  searches: SearchLimits(limits: limits)).register(on: router)
        // Drawing rooms: accounts, rooms over HTTP, and the live socket on a router of its own.
        // A room of 100,000 points or more held some 10 MB in many small blocks, which glibc keeps
        // unless asked: give them back when it leaves memory.
        let host = RoomHost(store: store, historyOperations: configuration.roomHistoryOperations,
                            unloaded: { points in if points >= 100_000 { FreedMemory.giveBackSoon() } })
        accounts.register(on: router.group("api"))
        RoomRoutes(service: service, host: host, accounts: accounts, limits: limits, fairShare: fairShare).register(on: router.group("api"))
        InvitationRoutes(host: host, accounts: accounts,
                         budget: InvitationBudget(perHour: limits.invitationsPerHour, perDay: limits.invitationsPerDay))
            .register(on: router.group("api"))
        PhoneAddress(publicURL: configuration.publicURL, secure: configuration.tlsCertificate != nil, listensOn: configuration.host)
            .register(on: router.group("api"))
        MapTiles(template: configuration.tileServer, attribution: configuration.tileAttribution).register(on: router)
        let sockets = Router(context: SocketContext.self)
        let presence = RoomPresence(sharedByServers: host.sharedByServers)
        let settingsFeed = RoomSettingsFeed(summaries: accounts.rooms)
        LiveRoomSocket(host: host, accounts: accounts, presence: presence, settingsFeed: settingsFeed,
                       sockets: SocketCounter(limits: limits), proxies: proxies).register(on: sockets)
        let metricsToken = configuration.metricsToken
        // Figures about the server (where its database is, how busy it is) are for its operator.
        let mayReadMetrics: @Sendable (Request) -> Bool = { request in
            guard let metricsToken, let auth = request.headers[.authorization], auth.hasPrefix("Bearer ") else { return false }
            return Accounts.same(String(auth.dropFirst(7)), metricsToken)
        }
        let edge = ConnectionCounter(limits: configuration.edge)
        router.get("healthz") { request, _ in
            let count = try await service.count()
            var fields: [(String, JSONText.Value)] = [("status", .string("ok"))]
            if request.uri.queryParameters.get("detail") == "true" {
                guard mayReadMetrics(request) else { throw APIError(.unauthorized, "details need the metrics token (Authorization: Bearer …)") }
                fields += [("molecules", .int(count)), ("database", .string(store.location)), ("connections", .int(edge.open)),
                           ("conversionsWaiting", .int(await service.limiter.queued)), ("hotCacheBytes", .int(service.hot.totalBytes))]
                let figures = service.counters.now
                let cache = try await service.archiveCacheSize()
                fields += [("conversionsRun", .int(figures.conversionsRun)), ("archiveDownloads", .int(figures.archiveDownloads)),
                           ("archiveCacheEntries", .int(cache.entries)), ("archiveCacheBytes", .int(cache.bytes))]
            }
            var response = Responses.json(JSONText.render(.object(fields)))
            response.headers[.cacheControl] = "no-store"
            return response
        }
        router.get("metrics") { request, _ in
            guard metricsToken != nil else { throw APIError(.notFound, "metrics are off (start the server with --metrics-token)") }
            guard mayReadMetrics(request) else { throw APIError(.unauthorized, "metrics need the token given to --metrics-token (Authorization: Bearer …)") }
            var bytes: [UInt8] = []
            registry.emit(into: &bytes)
            return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4"], body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
        }
        // Read once: the document does not change while the server runs.
        let openAPI = Bundle.module.url(forResource: "openapi", withExtension: "yaml")
            .flatMap { try? Data(contentsOf: $0) }.map { ByteBuffer(bytes: [UInt8]($0)) }
        router.get("api/openapi.yaml") { _, _ in
            guard let openAPI else { throw APIError(.notFound, "openapi.yaml is missing") }
            return Response(status: .ok, headers: [.contentType: "application/yaml"], body: .init(byteBuffer: openAPI))
        }
        var http1 = HTTP1Channel.Configuration(additionalChannelHandlers: [ParserErrorHandler()], idleTimeout: configuration.edge.idleTimeout)
        // Later requests on a kept-alive connection meet NIO's parser limit (400), the first one ours (431).
        http1.httpDecoder = .init(maxHeaderFieldSize: 2 * configuration.edge.maxHeaderBytes, maxHeaderListSize: 2 * configuration.edge.maxHeaderBytes)
        // Compression only for messages of 2 KiB or more (snapshots, batches of operations): below
        // that it saves little and costs every broadcast; what a client sends is inflated to at
        // most the frame limit.
        // A compressed frame is inflated to at most a message's size (64 KiB): a 1 KB frame must
        // not become 1 MB of work before the message limit sees it.
        let deflate = WebSocketExtensionFactory.perMessageDeflate(maxDecompressedFrameSize: LiveRoomSocket.maximumMessageBytes,
                                                                  minFrameSizeToCompress: 2_048)
        let channelConfiguration = HTTP1WebSocketUpgradeChannel.Configuration(
            http1: http1, ws: .init(maxFrameSize: LiveRoomSocket.maximumFrameBytes, extensions: configuration.socketCompression ? [deflate] : []))
        let tls = try TLSFiles(certificate: configuration.tlsCertificate, key: configuration.tlsKey)
        let socketResponder = sockets.buildResponder()
        let server = HTTPServerBuilder { responder in
            let guarded = EdgeGuardedChannel(base: HTTP1WebSocketUpgradeChannel(responder: responder, webSocketResponder: socketResponder,
                                                                                configuration: channelConfiguration), counter: edge)
            guard let tls else { return guarded }
            return try TLSChannel(guarded, tlsConfiguration: tls.configuration)
        }
        return Application(
            router: HeadAsGet(router: router),
            server: server,
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "proteinar"),
            services: [RoomRelay(host: host, presence: presence, settings: settingsFeed)],
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? configuration.port) },
            logger: logger)
    }

    static func webRoot(_ configuration: ServerConfiguration) -> String {
        if let root = configuration.webRoot { return root }
        return WebApp.root ?? "Web"
    }
}

/// Metrics go to one Prometheus registry per process (swift-metrics can be bootstrapped once);
/// a static let is initialised once, on first use, whatever the thread.
enum MetricsBootstrap {
    static let registry: PrometheusCollectorRegistry = {
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        return registry
    }()
}

/// The certificate and key of `--tls-cert`/`--tls-key`, read once at start: a wrong path or a bad
/// file stops the server with a message instead of failing every connection.
struct TLSFiles {
    let configuration: TLSConfiguration

    init?(certificate: String?, key: String?) throws {
        guard certificate != nil || key != nil else { return nil }
        guard let certificate, let key else { throw ServerSetupError("--tls-cert and --tls-key go together: give both") }
        do {
            let chain = try NIOSSLCertificate.fromPEMFile(certificate).map { NIOSSLCertificateSource.certificate($0) }
            let privateKey = try NIOSSLPrivateKey(file: key, format: .pem)
            configuration = TLSConfiguration.makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(privateKey))
        } catch {
            throw ServerSetupError("cannot read the TLS certificate \(certificate) or key \(key): \(error)")
        }
    }
}

/// A setting the server cannot start with; the message says which.
public struct ServerSetupError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
