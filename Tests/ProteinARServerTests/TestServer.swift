import AsyncHTTPClient
import Foundation
import NIOHTTP1
import Hummingbird
import Storage
import Logging
import MoleculeLibrary
import NIOCore
import PDBArchive
import ProteinARServer
import TestArchive
import TestSupport

/// A real server on a loopback port, on a fresh library, talking to the fixture archive.
final class TestServer: @unchecked Sendable {  // adminToken is set once, before the server is handed out
    let port: Int
    let service: LibraryService
    let archive: FixtureArchive
    private let task: Task<Void, any Error>
    private let cleanup: @Sendable () async -> Void
    /// The bearer token of the server's first account, its administrator: requests carry it unless
    /// they say `anonymous` (library writes need an account; tests about who may do what say who).
    private(set) var adminToken = ""

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
            let dir = try ScratchDirectory("proteinar-test", create: false)
            configuration.dataDirectory = dir.path
            cleanup = { dir.remove() }
        case .postgres:
            let (url, drop) = try await PostgresScratch.create()
            configuration.databaseURL = url
            cleanup = drop
        }
        configure(&configuration)
        var logger = Logger(label: "test")
        logger.logLevel = .critical  // cancelling a server at the end of a test logs shutdown noise
        let service = try await ProteinARServer.openLibrary(configuration, logger: logger)
        let settings = configuration
        let (port, task) = try await LoopbackServer.start("the ProteinAR server") { running in
            try ProteinARServer.buildApplication(service: service, configuration: settings, logger: logger) { port in running(port) }
        }
        let server = TestServer(port: port, service: service, archive: archive, task: task, cleanup: cleanup)
        let admin = try await server.postJSON("/api/accounts", #"{"email": "admin@example.org", "password": "correct horse", "kind": "token"}"#,
                                              anonymous: true)
        guard admin.status == 201, let token = admin.json["token"] as? String else {
            throw TestServerError("registering the administrator: \(admin.status) \(admin.text)")
        }
        server.adminToken = token
        return server
    }

    struct TestServerError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
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

    func request(_ method: HTTPMethod, _ path: String, headers: [String: String] = [:], body: [UInt8]? = nil,
                 anonymous: Bool = false) async throws -> Reply {
        var h = headers
        if !anonymous, h["Authorization"] == nil, !adminToken.isEmpty { h["Authorization"] = "Bearer \(adminToken)" }
        if body != nil, h["Content-Type"] == nil { h["Content-Type"] = "application/octet-stream" }
        return try await TestHTTP.send(base + path, method: method, headers: h, body: body)
    }

    func get(_ path: String, headers: [String: String] = [:], anonymous: Bool = false) async throws -> Reply {
        try await request(.GET, path, headers: headers, anonymous: anonymous)
    }

    func postJSON(_ path: String, _ json: String, headers: [String: String] = [:], anonymous: Bool = false) async throws -> Reply {
        var h = headers
        h["Content-Type"] = "application/json"
        return try await request(.POST, path, headers: h, body: Array(json.utf8), anonymous: anonymous)
    }
}

