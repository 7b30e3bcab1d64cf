import Foundation
import NIOHTTP1
import Testing
import TestArchive
import TestSupport

/// The `proteinar` binary as people run it: killed mid-download, and the library commands.
@Suite("proteinar serve and library commands, as processes", .serialized)
struct ProcessTests {
    static let binary: String = {
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("proteinar").path
        if FileManager.default.isExecutableFile(atPath: beside) { return beside }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return root.appendingPathComponent(".build/debug/proteinar").path
    }()

    /// Starts `proteinar serve` and waits for its "listening on" line; returns the process and port.
    static func serve(dataDir: String, archive: FixtureArchive) async throws -> (Process, Int) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binary)
        // An open library: these tests are about processes (killed, restarted), not about who may add.
        p.arguments = ["serve", "--port", "0", "--host", "127.0.0.1", "--data-dir", dataDir, "--rcsb-url", archive.baseURL, "--open-library"]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        var text = ""
        let deadline = Date().addingTimeInterval(120)
        while Date() < deadline {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty {
                if !p.isRunning { break }  // ended without listening
                try await Task.sleep(for: .milliseconds(50))
                continue
            }
            text += String(decoding: chunk, as: UTF8.self)
            if let r = text.range(of: "listening on http://127.0.0.1:"),
               let port = Int(text[r.upperBound...].prefix { $0.isNumber }) {
                return (p, port)
            }
        }
        p.terminate()
        throw TestSetupError(description: "proteinar serve did not start: \(text)")
    }

    /// Posts `json` asking for progress events and reads them as they come; returns the byte count
    /// of the first "downloaded N bytes" event with N > 0 (the request is left open).
    static func firstDownloadedBytes(_ url: String, _ json: String) async throws -> Int {
        var r = HTTPClientRequest(url: url)
        r.method = .POST
        r.headers.add(name: "Content-Type", value: "application/json")
        r.headers.add(name: "Accept", value: "text/event-stream")
        r.body = .bytes(ByteBuffer(string: json))
        let response = try await TestHTTP.client.execute(r, timeout: .seconds(120))
        guard response.status == .ok else { throw TestSetupError(description: "POST \(url): \(response.status)") }
        var text = ""
        for try await chunk in response.body {
            text += String(buffer: chunk)
            for match in text.matches(of: /downloaded (\d+) bytes/) {
                if let n = Int(match.1), n > 0 { return n }
            }
        }
        throw TestSetupError(description: "the events ended before any bytes arrived: \(text)")
    }

    static func run(_ arguments: [String]) throws -> (Int32, String, String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: binary)
        p.arguments = arguments
        let out = Pipe(), err = Pipe()
        p.standardOutput = out; p.standardError = err
        try p.run()
        let o = out.fileHandleForReading.readDataToEndOfFile(), e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: o, as: UTF8.self), String(decoding: e, as: UTF8.self))
    }

    @Test("a server killed with SIGKILL during a fetch leaves no half-written record and restarts cleanly")
    func killedDuringFetch() async throws {
        let archive = try await FixtureArchive()
        defer { archive.stop() }
        let scratch = try ScratchDirectory("proteinar-kill", create: false)
        defer { scratch.remove() }
        let dir = scratch.path
        let (server, port) = try await Self.serve(dataDir: dir, archive: archive)
        let starter = try await TestHTTP.get("http://127.0.0.1:\(port)/api/molecules?limit=100")
        let count = (starter.json["total"] as? Int) ?? -1
        #expect(count >= 10)
        // 8HNG's download sends half its bytes, then stalls; kill the server while it waits, once
        // its progress events say bytes have arrived.
        let file = try #require(FixtureArchive.files["/download/8HNG.cif.gz"])
        let received = try await within(.seconds(60), "the server to report 8HNG's first bytes") {
            try await Self.firstDownloadedBytes("http://127.0.0.1:\(port)/api/molecules", #"{"id": "8HNG"}"#)
        }
        #expect(received > 0 && received <= file.count / 2, "\(received) of \(file.count) bytes")
        #expect(await archive.log.statuses("/download/8HNG.cif.gz") == [200])
        kill(server.processIdentifier, SIGKILL)
        server.waitUntilExit()
        #expect(server.terminationReason == .uncaughtSignal && server.terminationStatus == SIGKILL)

        let (again, port2) = try await Self.serve(dataDir: dir, archive: archive)
        defer { again.terminate(); again.waitUntilExit() }
        let after = try await TestHTTP.get("http://127.0.0.1:\(port2)/api/molecules?limit=100")
        #expect(after.json["total"] as? Int == count)
        #expect(try await TestHTTP.get("http://127.0.0.1:\(port2)/api/molecules/8HNG").status == 404)
        #expect(try await TestHTTP.get("http://127.0.0.1:\(port2)/healthz").status == 200)
        // The library works: a fetch and a model.
        #expect(try await TestHTTP.postJSON("http://127.0.0.1:\(port2)/api/molecules", #"{"id": "pdb_00005pti"}"#).status == 201)
        #expect(try await TestHTTP.get("http://127.0.0.1:\(port2)/api/molecules/1UBI/model.glb").status == 200)
    }

    @Test("proteinar fetch, search and library list|show|rm")
    func libraryCommands() async throws {
        let archive = try await FixtureArchive()
        defer { archive.stop() }
        let scratch = try ScratchDirectory("proteinar-cli", create: false)
        defer { scratch.remove() }
        let common = ["--data-dir", scratch.path, "--rcsb-url", archive.baseURL]
        let fetched = try Self.run(["fetch", "7FLK", "pdb_00005pti"] + common)
        #expect(fetched.0 == 0, "proteinar fetch: \(fetched.2)")
        #expect(fetched.1.contains("7FLK") && fetched.1.contains("pdb_00005pti"))
        // This test's archive answered 7FLK with a 503 first: the command tried again.
        #expect(await archive.log.statuses("/download/7FLK.cif.gz") == [503, 200])
        let bad = try Self.run(["fetch", "9ZZZ"] + common)
        #expect(bad.0 != 0 && bad.2.contains("9ZZZ"))
        let invalid = try Self.run(["fetch", "../etc"] + common)
        #expect(invalid.0 != 0 && invalid.2.contains("4HHB"))
        let list = try Self.run(["library", "list"] + common)
        #expect(list.0 == 0 && list.1.contains("pdb_00005pti\trcsb") && list.1.contains("1UBI\tstarter"))
        let show = try Self.run(["library", "show", "pdb_00005pti"] + common)
        #expect(show.0 == 0 && show.1.contains("TRYPSIN INHIBITOR"))
        #expect(try Self.run(["library", "rm", "pdb_00005pti"] + common).0 == 0)
        let gone = try Self.run(["library", "show", "pdb_00005pti"] + common)
        #expect(gone.0 != 0 && gone.2.contains("pdb_00005pti"))
        let search = try Self.run(["search", "kinase"] + common)
        #expect(search.0 == 0 && search.1.contains("1AKE"))
        let unreachable = try Self.run(["search", "kinase", "--rcsb-url", "http://127.0.0.1:9"])
        #expect(unreachable.0 != 0 && unreachable.2.contains("refused"))
    }
}

/// Plain HTTP on loopback for the tests: the in-process server's requests and the process tests'.
enum TestHTTP {
    /// The shared client as a browser would be, but without its 25:1 decompression limit: a
    /// browser has none, and /metrics' text (the registry is process-wide, so it grows with
    /// every test before it) compresses by more than that.
    static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration.singletonConfiguration
        configuration.decompression = .enabled(limit: .size(256 << 20))
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    static func get(_ url: String) async throws -> TestServer.Reply { try await send(url, method: .GET) }
    static func postJSON(_ url: String, _ json: String) async throws -> TestServer.Reply {
        try await send(url, method: .POST, headers: ["Content-Type": "application/json"], body: Array(json.utf8))
    }

    static func send(_ url: String, method: HTTPMethod, headers: [String: String] = [:], body: [UInt8]? = nil) async throws -> TestServer.Reply {
        var r = HTTPClientRequest(url: url)
        r.method = method
        for (k, v) in headers { r.headers.add(name: k, value: v) }
        if let body { r.body = .bytes(ByteBuffer(bytes: body)) }
        let started = Date()
        var bytes: [UInt8] = []
        var fields: [String: String] = [:]
        do {
            let response = try await client.execute(r, timeout: .seconds(120))
            for try await chunk in response.body { bytes.append(contentsOf: chunk.readableBytesView) }
            for field in response.headers { fields[field.name.lowercased()] = field.value }
            return TestServer.Reply(status: Int(response.status.code), headers: fields, body: bytes)
        } catch {
            // Name the request, so that a failure under load says which one hung.
            throw TestSetupError(description: "\(method) \(url): \(error) after \(Int(Date().timeIntervalSince(started))) s")
        }
    }
}

import AsyncHTTPClient
import NIOCore
