import Foundation
import Testing
import TestSupport

/// A room's log over HTTP, read in pages bounded in bytes (issue 29, finding 5).
@Suite("Room log pages")
struct RoomLogTests {
    @Test("a log of large operations comes in pages of at most 1 MiB, each operation once and in order, as stored",
          arguments: StoreKind.allCases)
    func pagesBoundedInBytes(kind: StoreKind) async throws {
        let server = try await TestServer.start(kind) { $0.installStarterLibrary = false }
        defer { Task { await server.stop() } }
        let account = try await server.postJSON("/api/accounts",
                                                #"{"email": "ada@example.org", "password": "correct horse", "name": "Ada", "kind": "token"}"#)
        let auth = ["Authorization": "Bearer " + (try #require(account.json["token"] as? String))]
        let created = try await server.postJSON("/api/rooms", #"{"name": "Log", "isPublic": true}"#, headers: auth)
        let id = try #require(created.json["id"] as? String)
        // 120 strokes of 500 points: about 1.9 MB of log.
        for k in 1...120 {
            // Points that do not compress 25-fold (the test client refuses more, as a decompression bomb).
            var generator = SystemRandomNumberGenerator()
            let points = (0..<500).map { _ in
                "[\(Double.random(in: -1...1, using: &generator)), \(Double.random(in: -1...1, using: &generator)), \(Double.random(in: -1...1, using: &generator))]"
            }.joined(separator: ",")
            let op = ##"{"clientOpID": "c\##(k)", "operation": {"type": "add-stroke", "id": "s\##(k)", "points": [\##(points)], "color": "#3366ff", "width": 0.005}}"##
            let ack = try await server.postJSON("/api/rooms/\(id)/operations", op, headers: auth)
            #expect(ack.status == 200, "operation \(k): \(ack.status) \(ack.text.prefix(200))")
            if ack.status == 429 { try await Task.sleep(for: .seconds(1)) }
        }
        var after = 0, pages = 0, seen: [Int] = []
        while true {
            let page = try await server.get("/api/rooms/\(id)/operations?after=\(after)&limit=5000", anonymous: true)
            #expect(page.status == 200)
            #expect(page.body.count <= (1 << 20) + 64 << 10, "page \(pages + 1): \(page.body.count) bytes")
            let ops = try #require(page.json["operations"] as? [[String: Any]])
            for op in ops {
                seen.append(try #require(op["sequence"] as? Int))
                let operation = try #require(op["operation"] as? [String: Any])
                #expect(operation["type"] as? String == "add-stroke" && (operation["points"] as? [Any])?.count == 500)
                #expect(op["author"] as? String != nil && op["clientOpID"] as? String != nil)
            }
            #expect(page.json["sequence"] as? Int == 120)
            pages += 1
            guard page.json["more"] as? Bool == true, let last = seen.last, pages < 10 else { break }
            after = last
        }
        #expect(seen == Array(1...120))
        #expect(pages >= 2, "1.9 MB of log in one page")
    }
}
