import Foundation
import Testing
import TestSupport

/// Lessons over HTTP on both stores (docs/lessons.md): made by an account, read by anyone, changed
/// and deleted by their owner only, answered by an account or a guest key, tallied for the owner.
@Suite("Lesson routes")
struct LessonRouteTests {
    static let step = #"{"molecule": "1AKE", "view": "style=cartoon&highlight=A:10-50", "text": "The **lid**.", "question": {"prompt": "Which domain moves most?", "choices": ["LID", "CORE", "NMP"], "answer": 0}}"#

    static func put(_ server: TestServer, _ path: String, _ json: String, headers: [String: String]) async throws -> TestServer.Reply {
        var h = headers
        h["Content-Type"] = "application/json"
        return try await server.request(.PUT, path, headers: h, body: Array(json.utf8))
    }

    @Test("owner, reader, another account, guests and the tally", arguments: StoreKind.allCases)
    func lessons(kind: StoreKind) async throws {
        let server = try await TestServer.start(kind) { $0.installStarterLibrary = false }
        defer { Task { await server.stop() } }
        let ada = try await InvitationTests.account(server, "ada")
        let ben = try await InvitationTests.account(server, "ben")
        let made = try await server.postJSON("/api/lessons", #"{"title": "Adenylate kinase", "steps": [\#(Self.step)]}"#, headers: ada)
        #expect(made.status == 201 && made.json["mine"] as? Bool == true && made.json["ownerName"] as? String == "ada")
        let id = made.json["id"] as? String ?? ""
        let stepID = (made.json["steps"] as? [[String: Any]])?.first?["id"] as? String ?? ""
        // Anyone reads it; nobody but its owner lists it.
        let read = try await server.get("/api/lessons/\(id)", anonymous: true)
        #expect(read.status == 200 && read.json["mine"] as? Bool == false && read.json["title"] as? String == "Adenylate kinase")
        #expect(try await server.get("/api/lessons", anonymous: true).status == 401)
        #expect((try await server.get("/api/lessons", headers: ben).json["lessons"] as? [Any])?.isEmpty == true)
        // Another account can neither change nor delete it, and nothing changes.
        #expect(try await Self.put(server, "/api/lessons/\(id)", #"{"title": "Mine now", "steps": []}"#, headers: ben).status == 403)
        #expect(try await server.request(.DELETE, "/api/lessons/\(id)", headers: ben).status == 403)
        #expect(try await server.get("/api/lessons/\(id)", anonymous: true).text == read.text)
        // A bad field is a 400 naming it.
        let bad = try await server.postJSON("/api/lessons", #"{"title": "x", "steps": [{"molecule": "1AKE", "question": {"prompt": "p", "choices": ["a", "b"], "answer": 5}}]}"#, headers: ada)
        #expect(bad.status == 400 && bad.text.contains("steps[0].question.answer"))
        // Answers: a guest by key, an account by name; without either, 400.
        let answer = #"{"step": "\#(stepID)", "choice": 1}"#
        let guest = try await server.postJSON("/api/lessons/\(id)/answers", answer, headers: ["X-Guest-Key": "guest-key-0123456789"], anonymous: true)
        #expect(guest.status == 200 && guest.json["correct"] as? Bool == false)
        #expect(try await server.postJSON("/api/lessons/\(id)/answers", answer, anonymous: true).status == 400)
        #expect(try await server.postJSON("/api/lessons/\(id)/answers", #"{"step": "\#(stepID)", "choice": 0}"#, headers: ben).json["correct"] as? Bool == true)
        let tally = try await server.get("/api/lessons/\(id)/answers", headers: ada)
        let question = (tally.json["questions"] as? [[String: Any]])?.first ?? [:]
        #expect(question["counts"] as? [Int] == [1, 1, 0] && question["total"] as? Int == 2)
        #expect((question["named"] as? [[String: Any]])?.map { $0["name"] as? String } == ["ben"])
        #expect(try await server.get("/api/lessons/\(id)/answers", headers: ben).status == 403)
        // Its owner changes and deletes it.
        let renamed = try await Self.put(server, "/api/lessons/\(id)", #"{"title": "Closing", "steps": [\#(Self.step)]}"#, headers: ada)
        #expect(renamed.status == 200 && renamed.json["title"] as? String == "Closing")
        #expect(try await server.request(.DELETE, "/api/lessons/\(id)", headers: ada).status == 204)
        #expect(try await server.get("/api/lessons/\(id)", anonymous: true).status == 404)
    }
}
