import Foundation
import Testing
import TestSupport

/// A room as an AR model over HTTP: GET /api/rooms/{id}/model.usdz and model.glb.
@Suite("Room model routes")
struct RoomRouteTests {
    /// A USDZ is an uncompressed zip whose first file is the USD layer (.usda or .usdc), its data
    /// starting on a 64-byte boundary.
    static func checkUSDZ(_ reply: TestServer.Reply) throws {
        #expect(reply.status == 200)
        #expect(reply.headers["content-type"] == "model/vnd.usdz+zip")
        #expect(reply.headers["etag"]?.isEmpty == false)
        let b = reply.body
        try #require(b.count > 30)
        #expect(Array(b[0..<4]) == [0x50, 0x4B, 0x03, 0x04], "a zip's local file header")
        func u16(_ at: Int) -> Int { Int(b[at]) | Int(b[at + 1]) << 8 }
        #expect(u16(8) == 0, "stored, not compressed")
        let nameLength = u16(26), extraLength = u16(28)
        try #require(30 + nameLength <= b.count)
        let first = String(decoding: b[30..<(30 + nameLength)], as: UTF8.self)
        #expect(first.hasSuffix(".usda") || first.hasSuffix(".usdc"), "first file: \(first)")
        #expect((30 + nameLength + extraLength) % 64 == 0, "the first file's data is 64-byte aligned")
    }

    /// A GLB starts with "glTF", version 2 and its own length, then the JSON chunk.
    static func checkGLB(_ reply: TestServer.Reply) throws {
        #expect(reply.status == 200)
        #expect(reply.headers["content-type"] == "model/gltf-binary")
        #expect(reply.headers["etag"]?.isEmpty == false)
        let b = reply.body
        try #require(b.count >= 20)
        func u32(_ at: Int) -> Int { Int(b[at]) | Int(b[at + 1]) << 8 | Int(b[at + 2]) << 16 | Int(b[at + 3]) << 24 }
        #expect(Array(b[0..<4]) == Array("glTF".utf8))
        #expect(u32(4) == 2, "glTF version")
        #expect(u32(8) == b.count, "the header's length is the file's")
        #expect(Array(b[16..<20]) == Array("JSON".utf8), "the first chunk is JSON")
    }

    @Test("a room's USDZ and GLB: valid files with ETags; strokes make a bigger model; an unknown room is 404",
          arguments: StoreKind.allCases)
    func models(kind: StoreKind) async throws {
        let server = try await TestServer.start(kind) { $0.installStarterLibrary = false }
        defer { Task { await server.stop() } }
        let account = try await server.postJSON("/api/accounts",
                                                #"{"email": "ada@example.org", "password": "correct horse", "name": "Ada", "kind": "token"}"#)
        #expect(account.status == 201)
        let auth = ["Authorization": "Bearer " + (try #require(account.json["token"] as? String))]
        let created = try await server.postJSON("/api/rooms", #"{"name": "Lab"}"#, headers: auth)
        #expect(created.status == 201)
        let id = try #require(created.json["id"] as? String)

        let emptyUSDZ = try await server.get("/api/rooms/\(id)/model.usdz", headers: auth)
        try Self.checkUSDZ(emptyUSDZ)
        let emptyGLB = try await server.get("/api/rooms/\(id)/model.glb", headers: auth)
        try Self.checkGLB(emptyGLB)

        let stroke = #"""
            {"clientOpID": "s1", "operation": {"type": "add-stroke", "id": "s1",
             "points": [[0, 0, 0], [0.05, 0.02, 0], [0.1, 0.1, 0.05]], "color": "#3366ff", "width": 0.005}}
            """#
        let ack = try await server.postJSON("/api/rooms/\(id)/operations", stroke, headers: auth)
        #expect(ack.status == 200 && ack.json["sequence"] as? Int == 1)

        let drawnUSDZ = try await server.get("/api/rooms/\(id)/model.usdz", headers: auth)
        try Self.checkUSDZ(drawnUSDZ)
        let drawnGLB = try await server.get("/api/rooms/\(id)/model.glb", headers: auth)
        try Self.checkGLB(drawnGLB)
        #expect(drawnUSDZ.body.count > emptyUSDZ.body.count)
        #expect(drawnGLB.body.count > emptyGLB.body.count)
        #expect(drawnUSDZ.headers["etag"] != emptyUSDZ.headers["etag"] && drawnGLB.headers["etag"] != emptyGLB.headers["etag"])
        #expect(drawnUSDZ.headers["etag"] != drawnGLB.headers["etag"])
        // The ETag confirms an unchanged room without sending it again.
        var ask = auth
        ask["If-None-Match"] = drawnGLB.headers["etag"]
        let unchanged = try await server.get("/api/rooms/\(id)/model.glb", headers: ask)
        #expect(unchanged.status == 304 && unchanged.body.isEmpty)

        for format in ["usdz", "glb"] {
            #expect(try await server.get("/api/rooms/rdoesnotexist/model.\(format)", headers: auth).status == 404)
        }
    }
}
