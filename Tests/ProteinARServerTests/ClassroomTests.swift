import Foundation
import MoleculeLibrary
import Testing
import TestSupport

/// Issue 28 over real HTTP: anyone opens any archive entry without an account, and a class asking
/// for the same thing at once costs one download and one conversion, with no one refused.
@Suite("A class opens one entry at once")
struct ClassroomTests {
    @Test("no account: an archive entry opens into the archive cache with a client cookie; deleting and uploading still need an account",
          arguments: StoreKind.allCases)
    func anyoneOpens(kind: StoreKind) async throws {
        let server = try await TestServer.start(kind)
        let opened = try await server.get("/api/archive/7FLK", anonymous: true)
        #expect(opened.status == 200, "\(opened.text)")
        #expect(opened.json["id"] as? String == "7FLK" && opened.json["inLibrary"] as? Bool == false)
        #expect(opened.headers["set-cookie"]?.hasPrefix("proteinar_client=") == true)
        let model = try await server.get("/api/molecules/7FLK/model.usdz", anonymous: true)
        #expect(model.status == 200 && model.headers["content-type"] == "model/vnd.usdz+zip")
        // Not listed with the library.
        let list = try await server.get("/api/molecules?q=7FLK", anonymous: true)
        #expect(list.json["total"] as? Int == 0)

        #expect(try await server.request(.DELETE, "/api/molecules/7FLK", anonymous: true).status == 401)
        let upload = try await server.request(.POST, "/api/molecules?name=x.cif", body: Array("data_x\n".utf8), anonymous: true)
        #expect(upload.status == 401)
        #expect(try await server.get("/api/molecules/7FLK", anonymous: true).status == 200)

        // Bad ids and missing entries are said plainly.
        #expect(try await server.get("/api/archive/not-an-id", anonymous: true).status == 400)
        let missing = try await server.get("/api/archive/9ZZZ", anonymous: true)
        #expect(missing.status == 404 && missing.text.contains("9ZZZ"))
        // A signed-in person adds it to the library: moved, not downloaded again.
        let added = try await server.postJSON("/api/molecules", #"{"id": "7FLK"}"#)
        #expect(added.status == 201 && added.json["inLibrary"] as? Bool == true)
        #expect(await server.archive.log.count("/download/7FLK.cif.gz") == 2)
        await server.stop()
    }

    @Test("30 requests at once from one address for one model nobody made yet: 30 × 200, one conversion; 30 opens of one entry: one download",
          arguments: StoreKind.allCases)
    func oneConversion(kind: StoreKind) async throws {
        let server = try await TestServer.start(kind)
        let before = server.service.counters.now
        let opens = try await Self.together(30) { try await server.get("/api/archive/pdb_00005pti", anonymous: true) }
        #expect(opens.map(\.status) == Array(repeating: 200, count: 30), "\(opens.filter { $0.status != 200 }.map(\.text).prefix(3))")
        #expect(server.service.counters.now.archiveDownloads == before.archiveDownloads + 1)

        let path = "/api/molecules/pdb_00005pti/model.glb?style=spacefill"
        let models = try await Self.together(30) { try await server.get(path, anonymous: true) }
        #expect(models.map(\.status) == Array(repeating: 200, count: 30), "\(models.filter { $0.status != 200 }.map(\.text).prefix(3))")
        #expect(Set(models.map(\.body)).count == 1)
        #expect(server.service.counters.now.conversionsRun == before.conversionsRun + 1)

        let pictures = try await Self.together(30) { try await server.get("/api/molecules/pdb_00005pti/thumbnail.png", anonymous: true) }
        #expect(pictures.map(\.status) == Array(repeating: 200, count: 30))
        #expect(server.service.counters.now.conversionsRun == before.conversionsRun + 2)
        await server.stop()
    }

    static func together(_ n: Int, _ body: @escaping @Sendable () async throws -> TestServer.Reply) async throws -> [TestServer.Reply] {
        try await withThrowingTaskGroup(of: TestServer.Reply.self) { group in
            for _ in 0..<n { group.addTask { try await body() } }
            var out: [TestServer.Reply] = []
            for try await reply in group { out.append(reply) }
            return out
        }
    }
}
