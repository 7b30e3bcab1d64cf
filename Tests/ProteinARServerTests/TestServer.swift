import AsyncHTTPClient
import Foundation
import NIOHTTP1
import Hummingbird
import Library
import Logging
import MoleculeLibrary
import NIOCore
import PDBArchive
import PostgresNIO
import ProteinARServer
import Testing

/// Which store a test runs on. PostgreSQL comes from `PROTEINAR_TEST_POSTGRES_URL` (scripts/test
/// starts a server from Debian's package and sets it); each test gets a database of its own.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite, postgres
    var testDescription: String { rawValue }
}

struct TestSetupError: Error, CustomStringConvertible { let description: String }

/// A real server on a loopback port, on a fresh library, talking to the fixture archive.
final class TestServer: Sendable {
    let port: Int
    let service: LibraryService
    let archive: FixtureArchive
    private let task: Task<Void, any Error>
    private let cleanup: @Sendable () async -> Void

    var base: String { "http://127.0.0.1:\(port)" }

    static func start(_ kind: StoreKind, configure: (inout ServerConfiguration) -> Void = { _ in }) async throws -> TestServer {
        let archive = try await FixtureArchive()
        var configuration = ServerConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = 0
        configuration.endpoints = ArchiveEndpoints(allAt: archive.baseURL)
        configuration.retry = RetryPolicy(attempts: 3, firstDelay: .milliseconds(20), timeout: .seconds(4))
        var cleanup: @Sendable () async -> Void = {}
        switch kind {
        case .sqlite:
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("proteinar-test-\(UUID().uuidString)").path
            configuration.dataDirectory = dir
            cleanup = { try? FileManager.default.removeItem(atPath: dir) }
        case .postgres:
            let (url, drop) = try await PostgresScratch.create()
            configuration.databaseURL = url
            cleanup = drop
        }
        configure(&configuration)
        var logger = Logger(label: "test")
        logger.logLevel = .critical  // cancelling a server at the end of a test logs shutdown noise
        let service = try await ProteinARServer.openLibrary(configuration, logger: logger)
        let (stream, continuation) = AsyncStream<Int>.makeStream()
        let app = ProteinARServer.application(service: service, configuration: configuration, logger: logger) { port in
            continuation.yield(port)
        }
        let task = Task { try await app.runService() }
        var port = 0
        for await p in stream { port = p; break }
        return TestServer(port: port, service: service, archive: archive, task: task, cleanup: cleanup)
    }

    private init(port: Int, service: LibraryService, archive: FixtureArchive, task: Task<Void, any Error>,
                 cleanup: @escaping @Sendable () async -> Void) {
        self.port = port; self.service = service; self.archive = archive; self.task = task; self.cleanup = cleanup
    }

    func stop() async {
        task.cancel()
        _ = await task.result
        archive.stop()
        try? await service.store.close()
        await cleanup()
    }

    struct Reply: Sendable {
        var status: Int
        var headers: [String: String]
        var body: [UInt8]
        var text: String { String(decoding: body, as: UTF8.self) }
        var json: [String: Any] { ((try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]) ?? [:] }
    }

    func request(_ method: HTTPMethod, _ path: String, headers: [String: String] = [:], body: [UInt8]? = nil) async throws -> Reply {
        try await TestHTTP.send(base + path, method: method, headers: headers, body: body)
    }

    func get(_ path: String, headers: [String: String] = [:]) async throws -> Reply { try await request(.GET, path, headers: headers) }

    func postJSON(_ path: String, _ json: String, headers: [String: String] = [:]) async throws -> Reply {
        var h = headers
        h["Content-Type"] = "application/json"
        return try await request(.POST, path, headers: h, body: Array(json.utf8))
    }
}

/// A throw-away PostgreSQL database per test.
enum PostgresScratch {
    static func create() async throws -> (String, @Sendable () async -> Void) {
        guard let admin = ProcessInfo.processInfo.environment["PROTEINAR_TEST_POSTGRES_URL"] else {
            throw TestSetupError(description: "PROTEINAR_TEST_POSTGRES_URL is not set: run scripts/test, which starts PostgreSQL, "
                                 + "or point it at a server (postgres://user@host:port/postgres)")
        }
        let name = "proteinar_test_\(UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16).lowercased())"
        try await adminQuery(admin, "CREATE DATABASE \(name)")
        guard var c = URLComponents(string: admin) else { throw TestSetupError(description: "bad PROTEINAR_TEST_POSTGRES_URL") }
        c.path = "/" + name
        let url = c.string ?? admin
        return (url, { try? await adminQuery(admin, "DROP DATABASE IF EXISTS \(name) WITH (FORCE)") })
    }

    static func adminQuery(_ url: String, _ sql: String) async throws {
        guard let c = URLComponents(string: url), let host = c.host else { throw TestSetupError(description: "bad postgres URL \(url)") }
        let configuration = PostgresClient.Configuration(host: host, port: c.port ?? 5432, username: c.user ?? "postgres",
                                                         password: c.password, database: String(c.path.dropFirst()), tls: .disable)
        let client = PostgresClient(configuration: configuration)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            try await client.query(PostgresQuery(unsafeSQL: sql))
            group.cancelAll()
        }
    }
}
