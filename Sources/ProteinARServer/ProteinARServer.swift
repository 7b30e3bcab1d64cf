import Foundation
import Hummingbird
import HummingbirdWebSocket
import Library
import Logging
import Metrics
import MoleculeLibrary
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
    /// Leaflet for the map of rooms, from Debian's libjs-leaflet, served at /vendor/leaflet/.
    public var leafletRoot = "/usr/share/javascript/leaflet"
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
                                     maxUploadBytes: configuration.maxUploadBytes, hotCacheBytes: configuration.hotCacheBytes)
        if configuration.installStarterLibrary {
            let added = try await service.installStarterLibrary()
            if added > 0 { logger.info("library was empty: added \(added) starter molecules") }
        }
        return service
    }

    /// The HTTP application: API, metrics, health, and the web app's files at `/`.
    public static func application(service: LibraryService, configuration: ServerConfiguration, logger: Logger,
                                   onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }) -> some ApplicationProtocol {
        let registry = MetricsBootstrap.registry
        let router = Router(context: BasicRequestContext.self)
        router.add(middleware: MetricsMiddleware())
        router.add(middleware: FileMiddleware(webRoot(configuration), searchForIndexHtml: true, logger: logger))
        if FileManager.default.fileExists(atPath: configuration.leafletRoot) {
            router.add(middleware: FileMiddleware(configuration.leafletRoot, urlBasePath: "/vendor/leaflet", logger: logger))
        }
        APIRoutes(service: service).register(on: router)
        // Drawing rooms: accounts, rooms over HTTP, and the live socket on a router of its own. The
        // library's store keeps accounts and room logs too; each part sees only its own protocol.
        let store = service.store
        let accounts = Accounts(store: store, rooms: RoomSummaries(rooms: store, accounts: store))
        let host = RoomHost(store: store)
        accounts.register(on: router.group("api"))
        RoomRoutes(service: service, host: host, accounts: accounts).register(on: router.group("api"))
        let sockets = Router(context: BasicWebSocketRequestContext.self)
        LiveRoomSocket(host: host, accounts: accounts, presence: RoomPresence()).register(on: sockets)
        router.get("healthz") { _, _ in
            let count = try await service.count()
            return Responses.json(JSONText.object(["status": .string("ok"), "molecules": .int(count),
                                                   "database": .string(store.location)]))
        }
        router.get("metrics") { _, _ in
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
        return Application(
            router: router,
            server: .http1WebSocketUpgrade(webSocketRouter: sockets,
                                           configuration: .init(ws: .init(maxFrameSize: LiveRoomSocket.maximumFrameBytes))),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "proteinar"),
            services: [RoomRelay(host: host)],
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
