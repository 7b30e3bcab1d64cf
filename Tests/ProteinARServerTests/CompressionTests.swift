import AsyncHTTPClient
import CompressNIO
import Foundation
import NIOHTTP1
import NIOCore
import Testing
import TestArchive
import TestSupport

/// gzip on the way out (CompressionMiddleware): for clients that ask, for types worth it, with its
/// own ETag and `Vary`, 304s on either tag; never for PNGs, HEAD or `q=0`.
@Suite("HTTP compression")
struct CompressionTests {
    static func gunzip(_ bytes: [UInt8]) throws -> [UInt8] {
        var buffer = ByteBuffer(bytes: bytes)
        let plain = try buffer.decompress(with: .gzip(), maxSize: 256 << 20)
        return Array(plain.readableBytesView)
    }

    /// A client that leaves bodies as they come (the shared one decompresses, and asks for gzip itself).
    static let raw = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(decompression: .disabled))

    static func get(_ server: TestServer, _ path: String, method: HTTPMethod = .GET, headers: [String: String] = [:]) async throws -> TestServer.Reply {
        var request = HTTPClientRequest(url: server.base + path)
        request.method = method
        request.headers.add(name: "Accept-Encoding", value: headers["Accept-Encoding"] ?? "identity")
        for (k, v) in headers where k != "Accept-Encoding" { request.headers.add(name: k, value: v) }
        let response = try await raw.execute(request, timeout: .seconds(60))
        var bytes: [UInt8] = []
        for try await chunk in response.body { bytes.append(contentsOf: chunk.readableBytesView) }
        var fields: [String: String] = [:]
        for field in response.headers { fields[field.name.lowercased()] = field.value }
        return TestServer.Reply(status: Int(response.status.code), headers: fields, body: bytes)
    }

    @Test("JSON, scripts and models are gzipped when asked (a HEAD says so as its GET would); PNGs and q=0 are not; 304 on either ETag")
    func gzip() async throws {
        let server = try await TestServer.start(.sqlite)
        defer { Task { await server.stop() } }
        let gz = ["Accept-Encoding": "br, gzip;q=0.8"]

        for path in ["/api/molecules", "/js/app.js", "/api/molecules/1UBI/model.glb?style=cartoon"] {
            let plain = try await Self.get(server, path)
            let packed = try await Self.get(server, path, headers: gz)
            #expect(plain.status == 200 && packed.status == 200, "\(path)")
            #expect(plain.headers["content-encoding"] == nil, "\(path)")
            #expect(packed.headers["content-encoding"] == "gzip", "\(path)")
            #expect(packed.headers["vary"]?.contains("Accept-Encoding") == true && plain.headers["vary"]?.contains("Accept-Encoding") == true, "\(path)")
            #expect(packed.body.count * 10 < plain.body.count * 9, "\(path): \(packed.body.count) of \(plain.body.count) bytes")
            #expect(try Self.gunzip(packed.body) == plain.body, "\(path)")
        }

        // The model's gzip is another representation: its own tag; a 304 answers either tag.
        let path = "/api/molecules/1UBI/model.glb?style=cartoon"
        let plain = try await Self.get(server, path), packed = try await Self.get(server, path, headers: gz)
        let tag = try #require(plain.headers["etag"]), gzTag = try #require(packed.headers["etag"])
        #expect(gzTag == String(tag.dropLast()) + "-gz\"")
        let again = try await Self.get(server, path, headers: gz.merging(["If-None-Match": gzTag]) { a, _ in a })
        #expect(again.status == 304 && again.headers["etag"] == gzTag)
        #expect(try await Self.get(server, path, headers: ["If-None-Match": tag]).status == 304)

        // Not for a PNG (already deflated), nor a client that refuses gzip. A HEAD has its GET's
        // headers (RFC 9110 §9.3.2): the gzip's encoding, tag and length, and no body.
        let png = try await Self.get(server, "/api/molecules/1UBI/thumbnail.png?size=128", headers: gz)
        #expect(png.status == 200 && png.headers["content-encoding"] == nil)
        let head = try await Self.get(server, path, method: .HEAD, headers: gz)
        #expect(head.status == 200 && head.body.isEmpty && head.headers["content-encoding"] == "gzip"
                && head.headers["etag"] == gzTag && head.headers["content-length"] == String(packed.body.count))
        let plainHead = try await Self.get(server, path, method: .HEAD)
        #expect(plainHead.headers["content-encoding"] == nil && plainHead.headers["content-length"] == String(plain.body.count))
        let refused = try await Self.get(server, path, headers: ["Accept-Encoding": "gzip;q=0, identity"])
        #expect(refused.headers["content-encoding"] == nil && refused.body == plain.body)
    }
}
