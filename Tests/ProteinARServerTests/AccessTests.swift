import Foundation
import Testing
import TestArchive
import TestSupport

/// Who may do what (docs/security.md): anonymous visitors read, signed-in people add and keep,
/// owners and the administrator delete; write endpoints take only their documented types; and
/// the limits that are about one request (quotas, sizes, nested compression) answer as documented.
@Suite("Access and limits")
struct AccessTests {
    static let ubiquitin = FixtureArchive.fixture("pdb1ubi.pdb")
    static let crambin = FixtureArchive.fixture("pdb1ejg.pdb")

    /// A new member's bearer token.
    static func member(_ server: TestServer, _ name: String) async throws -> String {
        let reply = try await server.postJSON("/api/accounts", #"{"email": "\#(name)@example.org", "password": "correct horse", "kind": "token"}"#,
                                              anonymous: true)
        #expect(reply.status == 201 && (reply.json["account"] as? [String: Any])?["role"] as? String == "member")
        return reply.json["token"] as? String ?? ""
    }

    @Test("roles: anonymous 401, non-owner 403, owner and administrator 204; nothing lost", arguments: StoreKind.allCases)
    func roles(kind: StoreKind) async throws {
        let server = try await TestServer.start(kind)
        defer { Task { await server.stop() } }
        let session = try await server.get("/api/session")
        #expect((session.json["account"] as? [String: Any])?["role"] as? String == "admin")  // the first account
        #expect(try await server.request(.DELETE, "/api/molecules/1UBI", anonymous: true).status == 401)
        #expect(try await server.request(.POST, "/api/molecules?name=1ubi.pdb", body: Self.ubiquitin, anonymous: true).status == 401)
        #expect(try await server.postJSON("/api/molecules", #"{"id": "1AKE"}"#, anonymous: true).status == 401)
        // A "simple" cross-site request: text/plain is refused before anything is read or stored.
        let simple = try await server.request(.POST, "/api/molecules?name=x.pdb", headers: ["Content-Type": "text/plain", "Origin": "http://evil.example"],
                                              body: Self.ubiquitin, anonymous: true)
        #expect(simple.status == 415)
        let ben = try await Self.member(server, "ben")
        let ada = try await Self.member(server, "ada")
        #expect(try await server.request(.DELETE, "/api/molecules/1UBI", headers: ["Authorization": "Bearer \(ben)"]).status == 403)
        #expect(try await server.get("/api/molecules/1UBI").status == 200)
        // Ben uploads: he owns it, Ada may not delete it, he may.
        let upload = try await server.request(.POST, "/api/molecules?name=1crn.pdb", headers: ["Authorization": "Bearer \(ben)"], body: Self.crambin)
        #expect(upload.status == 201)
        let id = upload.json["id"] as? String ?? ""
        let mine = try await server.get("/api/molecules?mine=true", headers: ["Authorization": "Bearer \(ben)"])
        #expect((mine.json["molecules"] as? [[String: Any]])?.map { $0["id"] as? String } == [id])
        #expect(try await server.get("/api/molecules?mine=true", anonymous: true).status == 401)
        #expect(try await server.request(.DELETE, "/api/molecules/\(id)", headers: ["Authorization": "Bearer \(ada)"]).status == 403)
        #expect(try await server.request(.DELETE, "/api/molecules/\(id)", headers: ["Authorization": "Bearer \(ben)"]).status == 204)
        // Ada keeps a starter molecule, then lets it go; the administrator deletes anything.
        #expect(try await server.request(.PUT, "/api/profile/molecules/1UBI", headers: ["Authorization": "Bearer \(ada)"]).status == 204)
        let adas = try await server.get("/api/molecules?mine=true", headers: ["Authorization": "Bearer \(ada)"])
        #expect(adas.json["total"] as? Int == 1)
        #expect(try await server.request(.DELETE, "/api/profile/molecules/1UBI", headers: ["Authorization": "Bearer \(ada)"]).status == 204)
        #expect(try await server.request(.DELETE, "/api/profile/molecules/1UBI", headers: ["Authorization": "Bearer \(ada)"]).status == 404)
        #expect(try await server.request(.DELETE, "/api/molecules/1UBI").status == 204)
    }

    @Test("an open library takes anonymous additions, never anonymous deletions")
    func openLibrary() async throws {
        let server = try await TestServer.start(.sqlite) { $0.limits.openLibrary = true }
        defer { Task { await server.stop() } }
        #expect(try await server.request(.POST, "/api/molecules?name=1crn.pdb", body: Self.crambin, anonymous: true).status == 201)
        #expect(try await server.request(.DELETE, "/api/molecules/1UBI", anonymous: true).status == 401)
    }

    @Test("quotas: an account's storage (413), the library's (507), uploads per hour (429 + Retry-After)")
    func quotas() async throws {
        let server = try await TestServer.start(.sqlite) {
            $0.quota.accountBytes = Self.ubiquitin.count + 100
            $0.limits.uploadsPerHour = 3
        }
        defer { Task { await server.stop() } }
        let ben = try await Self.member(server, "ben")
        let auth = ["Authorization": "Bearer \(ben)"]
        #expect(try await server.request(.POST, "/api/molecules?name=1ubi.pdb", headers: auth, body: Self.ubiquitin).status == 201)
        let over = try await server.request(.POST, "/api/molecules?name=1crn.pdb", headers: auth, body: Self.crambin)
        #expect(over.status == 413 && over.text.contains("MB an account may keep"))
        let third = try await server.request(.POST, "/api/molecules?name=1crn.pdb", headers: auth, body: Self.crambin)
        #expect(third.status == 413)
        let fourth = try await server.request(.POST, "/api/molecules?name=1crn.pdb", headers: auth, body: Self.crambin)
        #expect(fourth.status == 429 && Int(fourth.headers["retry-after"] ?? "") ?? 0 > 0)

        let full = try await TestServer.start(.sqlite) { $0.quota.libraryBytes = 1 }
        defer { Task { await full.stop() } }
        let refused = try await full.request(.POST, "/api/molecules?name=1crn.pdb", body: Self.crambin)
        #expect(refused.status == 507 && refused.text.contains("full"))
    }

    @Test("nested compression is refused, a damaged gzip is not called a bomb, titles are capped")
    func compressionAndText() async throws {
        let server = try await TestServer.start(.sqlite)
        defer { Task { await server.stop() } }
        let nested = try await server.request(.POST, "/api/molecules?name=x.pdb.gz", body: FixtureArchive.gzip(FixtureArchive.gzip(Self.crambin)))
        #expect(nested.status == 413 && nested.text.contains("nested compression"))
        let gz = FixtureArchive.gzip(Self.crambin)
        let cut = try await server.request(.POST, "/api/molecules?name=cut.pdb.gz", body: Array(gz.prefix(gz.count / 2)))
        #expect(cut.status == 422 && !cut.text.contains("inflates"))
        var long = Array("HEADER    TEST\n".utf8)
        for i in 1...99 {
            let continuation = i == 1 ? "  " : (i < 10 ? " \(i)" : "\(i)")
            long += Array("TITLE   \(continuation) \(String(repeating: "LONG TITLE ", count: 6))\n".utf8)
        }
        long += Self.crambin.split(separator: UInt8(ascii: "\n")).filter { $0.starts(with: Array("ATOM".utf8)) }.flatMap { Array($0) + [10] }
        let titled = try await server.request(.POST, "/api/molecules?name=long.pdb", body: long)
        #expect(titled.status == 201)
        #expect((titled.json["title"] as? String)?.count ?? 0 <= 300)
    }

    @Test("model parameters: thumbnails from a fixed set, selections capped, triangles capped, sizes quantised")
    func parameters() async throws {
        let server = try await TestServer.start(.sqlite)
        defer { Task { await server.stop() } }
        #expect(try await server.get("/api/molecules/1UBI/thumbnail.png?size=2048").status == 400)
        #expect(try await server.get("/api/molecules/1UBI/thumbnail.png?size=100").status == 400)
        #expect(try await server.get("/api/molecules/1UBI/thumbnail.png?size=64").status == 200)
        let terms = (1...2_000).map { "A:\($0)" }.joined(separator: ",")
        #expect(try await server.get("/api/molecules/1UBI/model.glb?select=\(terms)").status == 400)
        #expect(try await server.get("/api/molecules/1UBI/model.glb?max-triangles=5000000").status == 400)
        let a = try await server.get("/api/molecules/1UBI/model.glb?size=0.3012")
        let b = try await server.get("/api/molecules/1UBI/model.glb?size=0.2987")
        #expect(a.status == 200 && a.headers["etag"] == b.headers["etag"])
    }

    @Test("security headers on every answer, bearer tokens never read from a URL")
    func headers() async throws {
        let server = try await TestServer.start(.sqlite)
        defer { Task { await server.stop() } }
        for path in ["/", "/api/molecules", "/api/molecules/NOPE"] {
            let reply = try await server.get(path, anonymous: true)
            #expect(reply.headers["content-security-policy"]?.contains("default-src 'self'") == true)
            #expect(reply.headers["content-security-policy"]?.contains("frame-ancestors 'none'") == true)
            #expect(reply.headers["x-content-type-options"] == "nosniff")
            #expect(reply.headers["referrer-policy"] == "same-origin")
        }
        #expect(try await server.get("/api/profile?token=\(server.adminToken)", anonymous: true).status == 401)
    }

    @Test("a signed-in phone's models, thumbnails and pages cost no session lookup; routes that ask look it up once")
    func sessionLookups() async throws {
        let server = try await TestServer.start(.sqlite) { $0.metricsToken = "metrics-token-for-tests" }
        defer { Task { await server.stop() } }
        func lookups() async throws -> Int {
            let detail = try await server.get("/healthz?detail=true", headers: ["Authorization": "Bearer metrics-token-for-tests"], anonymous: true)
            return detail.json["sessionLookups"] as? Int ?? -1
        }
        let model = "/api/molecules/1UBI/model.glb?style=cartoon"
        let thumbnail = "/api/molecules/1UBI/thumbnail.png?size=64"
        // Converted once: costly work counts against the account's fair share, so the session is looked up.
        let first = try await lookups()
        #expect(try await server.get(model).status == 200)
        #expect(try await server.get(thumbnail).status == 200)
        #expect(try await lookups() == first + 2)
        // Served from memory, as a class's phones fetch them: no lookup, however many.
        let before = try await lookups()
        for path in [model, thumbnail, "/api/molecules/1UBI", "/api/model-options", "/", "/js/app.js", "/api/map"] {
            for _ in 0..<3 {
                let status = try await server.get(path).status
                #expect(status == 200, "\(path)")
            }
        }
        #expect(try await lookups() == before)
        // A route that asks who is there looks the session up once.
        #expect(try await server.get("/api/session").status == 200)
        #expect(try await lookups() == before + 1)
    }
}
