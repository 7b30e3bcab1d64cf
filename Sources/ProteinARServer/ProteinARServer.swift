import Accounts
import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import HummingbirdWSCompression
import HummingbirdWebSocket
import Lessons
import LiveRooms
import Logging
import Metrics
import MoleculeLibrary
import NIOSSL
import PDBArchive
import Prometheus
import RoomHost
import Storage
import WebApp

/// The server, as Hummingbird's examples shape one: `openLibrary` opens the store,
/// `buildApplication` builds the services once (`ServerServices`, the composition root), the
/// router (`buildRouter`: middleware, then each controller's routes), and the HTTP server that
/// carries it and upgrades live room sockets (`LiveRoomSocket`).
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

    /// The HTTP application: API, live sockets, metrics, health, and the web app's files at `/`.
    public static func buildApplication(service: LibraryService, configuration: ServerConfiguration, logger: Logger,
                                        onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }) throws -> some ApplicationProtocol {
        _ = MetricsBootstrap.registry  // before anything makes a metric
        let services = try ServerServices(library: service, configuration: configuration)
        let router = buildRouter(services, configuration: configuration, logger: logger)
        let liveRooms = LiveRoomSocket(host: services.host, accounts: services.accountRoutes, presence: services.presence,
                                       settingsFeed: services.settingsFeed, sockets: SocketCounter(limits: services.limits),
                                       proxies: services.proxies)
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
        let edge = services.edge
        let server = HTTPServerBuilder { responder in
            let upgrading = HTTP1WebSocketUpgradeChannel(responder: responder, configuration: channelConfiguration) { head, channel, _ in
                await liveRooms.shouldUpgrade(head, channel: channel)
            }
            let guarded = EdgeGuardedChannel(base: upgrading, counter: edge)
            guard let tls else { return guarded }
            return try TLSChannel(guarded, tlsConfiguration: tls.configuration)
        }
        return Application(
            router: HeadAsGet(router: router),
            server: server,
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "proteinar"),
            services: [RoomRelay(host: services.host, presence: services.presence, settings: services.settingsFeed)],
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? configuration.port) },
            logger: logger)
    }

    /// Middleware (the client's address, deadlines, security headers, compression, metrics, the
    /// anonymous client id, the web app's files), then every controller's routes, those that ask
    /// who is there behind the authenticator (`IdentityMiddleware`).
    static func buildRouter(_ services: ServerServices, configuration: ServerConfiguration, logger: Logger) -> Router<ServerContext> {
        let router = Router(context: ServerContext.self)
        router.add(middleware: ForwardedAddressMiddleware(proxies: services.proxies))
        router.add(middleware: BodyDeadlineMiddleware())
        router.add(middleware: SecurityHeadersMiddleware())
        router.add(middleware: CompressionMiddleware())
        router.add(middleware: MetricsMiddleware())
        router.add(middleware: AnonymousClientMiddleware(clients: AnonymousClients(idsPerAddressPerHour: configuration.limits.clientIDsPerAddressPerHour)))
        for middleware in WebAppFiles(root: webRoot(configuration)).middlewares(logger: logger) { router.add(middleware: middleware) }
        for (name, folder) in configuration.webLibraries.sorted(by: { $0.key < $1.key }) where FileManager.default.fileExists(atPath: folder) {
            router.add(middleware: FileMiddleware(folder, urlBasePath: "/vendor/\(name)", logger: logger))
        }
        // Who is asking, for the routes that ask: models, thumbnails, tiles and the page's files cost
        // no session lookup (a class's phones fetch those most).
        let api = router.group("api")
        let asking = router.group("api").add(middleware: IdentityMiddleware<ServerContext>(accounts: services.accounts))
        let limits = configuration.limits
        let library = services.library
        APIRoutes(service: library, accounts: services.accountRoutes, limits: limits, fairShare: services.fairShare,
                  uploads: RateLimiter(burst: limits.uploadsPerHour, per: 3600), openings: ArchiveOpenings(limits: limits),
                  searches: SearchLimits(limits: limits)).register(on: api, asking: asking)
        services.accountRoutes.register(on: asking)
        RoomRoutes(service: library, host: services.host, accounts: services.accountRoutes, limits: limits, fairShare: services.fairShare)
            .register(on: asking)
        InvitationRoutes(host: services.host, accounts: services.accountRoutes,
                         budget: InvitationBudget(perHour: limits.invitationsPerHour, perDay: limits.invitationsPerDay))
            .register(on: asking)
        LessonRoutes(service: services.lessons, accounts: services.accounts.store).register(on: asking)
        PhoneAddress(publicURL: configuration.publicURL, secure: configuration.tlsCertificate != nil, listensOn: configuration.host)
            .register(on: api)
        MapTiles(template: configuration.tileServer, attribution: configuration.tileAttribution).register(on: router)
        OperatorRoutes(library: library, accounts: services.accounts, metricsToken: configuration.metricsToken, edge: services.edge).register(on: router)
        return router
    }

    static func webRoot(_ configuration: ServerConfiguration) -> String {
        if let root = configuration.webRoot { return root }
        return WebApp.root ?? "Web"
    }
}

/// The composition root: every service the controllers share, built once from the library's store
/// (which keeps accounts, invitations and room logs too: each part sees only its own protocol).
struct ServerServices: Sendable {
    let library: LibraryService
    let accounts: AccountService
    let accountRoutes: AccountRoutes
    let host: RoomHost
    let presence: RoomPresence
    let settingsFeed: RoomSettingsFeed
    let fairShare: FairShare
    let limits: ServerLimits
    let proxies: TrustedProxies
    let edge: ConnectionCounter
    let lessons: LessonService

    init(library: LibraryService, configuration: ServerConfiguration) throws {
        for proxy in configuration.edge.trustedProxies where TrustedProxies.address(proxy) == nil {
            throw ServerSetupError("--trusted-proxy '\(proxy.prefix(60))': expected an IP address such as 127.0.0.1 or ::1")
        }
        let store = library.store
        limits = configuration.limits
        self.library = library
        accounts = AccountService(store: store)
        accountRoutes = AccountRoutes(service: accounts, rooms: RoomSummaries(rooms: store, accounts: store), invitations: store,
                                      passwordHashes: RateLimiter(burst: limits.bcryptPerMinute, per: 60))
        fairShare = FairShare(perClient: limits.conversionsPerClient, perAddress: limits.conversionsPerAddress)
        // A room of 100,000 points or more held some 10 MB in many small blocks, which glibc keeps
        // unless asked: give them back when it leaves memory.
        host = RoomHost(store: store, historyOperations: configuration.roomHistoryOperations,
                        unloaded: { points in if points >= 100_000 { FreedMemory.giveBackSoon() } })
        presence = RoomPresence(sharedByServers: host.sharedByServers)
        settingsFeed = RoomSettingsFeed(summaries: accountRoutes.rooms)
        proxies = TrustedProxies(configuration.edge.trustedProxies)
        edge = ConnectionCounter(limits: configuration.edge)
        lessons = LessonService(store: store)
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
