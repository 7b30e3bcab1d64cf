import Foundation
import Testing
import TestSupport

/// Membership by invitation (issue 29, finding 10; docs/security.md): inviting answers the same
/// whether or not the e-mail has an account, nobody is a member before accepting, and only the
/// invited e-mail's account may accept.
@Suite("Room invitations")
struct InvitationTests {
    /// A new account's bearer token header.
    static func account(_ server: TestServer, _ name: String) async throws -> [String: String] {
        let reply = try await server.postJSON("/api/accounts", #"{"email": "\#(name)@example.org", "password": "correct horse", "name": "\#(name)", "kind": "token"}"#,
                                              anonymous: true)
        #expect(reply.status == 201)
        return ["Authorization": "Bearer \(reply.json["token"] as? String ?? "")"]
    }

    static func room(_ server: TestServer, _ owner: [String: String], _ name: String = "Lab") async throws -> String {
        let created = try await server.postJSON("/api/rooms", #"{"name": "\#(name)"}"#, headers: owner)
        #expect(created.status == 201)
        return created.json["id"] as? String ?? ""
    }

    static func invite(_ server: TestServer, _ owner: [String: String], _ room: String, _ email: String) async throws -> TestServer.Reply {
        try await server.postJSON("/api/rooms/\(room)/invitations", #"{"email": "\#(email)"}"#, headers: owner)
    }

    static func received(_ server: TestServer, _ who: [String: String]) async throws -> [[String: Any]] {
        let reply = try await server.get("/api/invitations", headers: who)
        #expect(reply.status == 200)
        return reply.json["invitations"] as? [[String: Any]] ?? []
    }

    @Test("the same answer for an e-mail with an account and one without; a bad e-mail is 400 naming the field", arguments: StoreKind.allCases)
    func sameAnswer(kind: StoreKind) async throws {
        let server = try await TestServer.start(kind) { $0.installStarterLibrary = false }
        defer { Task { await server.stop() } }
        let ada = try await Self.account(server, "ada")
        _ = try await Self.account(server, "ben")
        let (one, two) = (try await Self.room(server, ada), try await Self.room(server, ada))
        let known = try await Self.invite(server, ada, one, "Ben@Example.org ")
        let unknown = try await Self.invite(server, ada, two, "nobody@example.org")
        #expect(known.status == 202 && unknown.status == 202)
        #expect(known.json["invited"] as? String == "ben@example.org")
        #expect(known.text.replacingOccurrences(of: "ben@example.org", with: "X") == unknown.text.replacingOccurrences(of: "nobody@example.org", with: "X"))
        #expect(Set(known.headers.keys).subtracting(["date"]) == Set(unknown.headers.keys).subtracting(["date"]))
        // The older route name answers the same.
        let older = try await server.postJSON("/api/rooms/\(two)/members", #"{"email": "ben@example.org"}"#, headers: ada)
        #expect(older.status == 202 && older.json["invitations"] as? [String] == ["ben@example.org", "nobody@example.org"])
        let bad = try await Self.invite(server, ada, one, "not an e-mail")
        #expect(bad.status == 400 && bad.text.contains("email"))
        let own = try await Self.invite(server, ada, one, "ada@example.org")
        #expect(own.status == 400 && own.text.contains("email"))
        // Only the owner invites, and only the owner sees who is invited.
        let ben = ["Authorization": "Bearer \(try await Self.signIn(server, "ben"))"]
        #expect(try await Self.invite(server, ben, one, "cy@example.org").status == 403)
        #expect(try await server.get("/api/rooms/\(one)/invitations", headers: ben).status == 403)
        #expect(try await server.postJSON("/api/rooms/\(one)/invitations", #"{"email": "cy@example.org"}"#, anonymous: true).status == 401)
    }

    static func signIn(_ server: TestServer, _ name: String) async throws -> String {
        let reply = try await server.postJSON("/api/sessions", #"{"email": "\#(name)@example.org", "password": "correct horse", "kind": "token"}"#,
                                              anonymous: true)
        #expect(reply.status == 200)
        return reply.json["token"] as? String ?? ""
    }

    @Test("not a member until accepted; accepting adds, declining removes; a stranger cannot accept; the owner withdraws",
          arguments: StoreKind.allCases)
    func acceptAndDecline(kind: StoreKind) async throws {
        let server = try await TestServer.start(kind) { $0.installStarterLibrary = false }
        defer { Task { await server.stop() } }
        let ada = try await Self.account(server, "ada")
        let ben = try await Self.account(server, "ben")
        let cy = try await Self.account(server, "cy")
        let room = try await Self.room(server, ada, "Active site")
        #expect(try await Self.invite(server, ada, room, "ben@example.org").status == 202)
        // Invited is not a member: the private room stays closed to Ben.
        #expect(try await server.get("/api/rooms/\(room)", headers: ben).status == 403)
        let mine = try await Self.received(server, ben)
        #expect(mine.count == 1 && mine.first?["room"] as? String == room && mine.first?["roomName"] as? String == "Active site"
                && mine.first?["invitedBy"] as? String == "ada")
        #expect(try await Self.received(server, cy).isEmpty)
        // Cy cannot take Ben's invitation, and nobody accepts without signing in.
        #expect(try await server.postJSON("/api/invitations/\(room)/accept", "{}", headers: cy).status == 404)
        #expect(try await server.postJSON("/api/invitations/\(room)/accept", "{}", anonymous: true).status == 401)
        #expect(try await server.get("/api/rooms/\(room)", headers: cy).status == 403)
        let accepted = try await server.postJSON("/api/invitations/\(room)/accept", "{}", headers: ben)
        #expect(accepted.status == 200 && (accepted.json["room"] as? [String: Any])?["role"] as? String == "member")
        #expect(try await server.get("/api/rooms/\(room)", headers: ben).status == 200)
        #expect(try await Self.received(server, ben).isEmpty)
        #expect(try await server.get("/api/rooms/\(room)/invitations", headers: ada).json["invitations"] as? [String] == [])
        #expect(try await server.postJSON("/api/invitations/\(room)/accept", "{}", headers: ben).status == 404)

        // Declining: the invitation goes, nobody is added.
        let other = try await Self.room(server, ada, "Other")
        #expect(try await Self.invite(server, ada, other, "cy@example.org").status == 202)
        #expect(try await server.request(.DELETE, "/api/invitations/\(other)", headers: cy).status == 204)
        #expect(try await server.request(.DELETE, "/api/invitations/\(other)", headers: cy).status == 404)
        #expect(try await server.postJSON("/api/invitations/\(other)/accept", "{}", headers: cy).status == 404)
        #expect(try await server.get("/api/rooms/\(other)", headers: cy).status == 403)

        // Withdrawing: the owner takes an invitation back before it is accepted.
        #expect(try await Self.invite(server, ada, other, "ben@example.org").status == 202)
        let withdrawn = try await server.request(.DELETE, "/api/rooms/\(other)/invitations/ben%40example.org", headers: ada)
        #expect(withdrawn.status == 200 && withdrawn.json["invitations"] as? [String] == [])
        #expect(try await server.postJSON("/api/invitations/\(other)/accept", "{}", headers: ben).status == 404)
        #expect(try await server.request(.DELETE, "/api/rooms/\(other)/invitations/ben%40example.org", headers: ben).status == 403)
    }

    @Test("an invitation to an e-mail that registers afterwards is there when it signs in", arguments: StoreKind.allCases)
    func registersLater(kind: StoreKind) async throws {
        let server = try await TestServer.start(kind) { $0.installStarterLibrary = false }
        defer { Task { await server.stop() } }
        let ada = try await Self.account(server, "ada")
        let room = try await Self.room(server, ada)
        #expect(try await Self.invite(server, ada, room, "dan@example.org").status == 202)
        let dan = try await Self.account(server, "dan")
        #expect(try await Self.received(server, dan).first?["room"] as? String == room)
        #expect(try await server.postJSON("/api/invitations/\(room)/accept", "{}", headers: dan).status == 200)
        let members = try await server.get("/api/rooms/\(room)", headers: ada).json["room"] as? [String: Any]
        #expect((members?["members"] as? [String])?.count == 1)
    }

    @Test("invitations per owner are rate-limited (429 + Retry-After, the same for any e-mail); each owner has their own budget")
    func limits() async throws {
        let server = try await TestServer.start(.sqlite) {
            $0.installStarterLibrary = false
            $0.limits.invitationsPerHour = 3
        }
        defer { Task { await server.stop() } }
        let ada = try await Self.account(server, "ada")
        _ = try await Self.account(server, "ben")
        let room = try await Self.room(server, ada)
        for n in 0..<3 { #expect(try await Self.invite(server, ada, room, "p\(n)@example.org").status == 202) }
        let known = try await Self.invite(server, ada, room, "ben@example.org")
        let unknown = try await Self.invite(server, ada, room, "nobody@example.org")
        #expect(known.status == 429 && unknown.status == 429 && Int(known.headers["retry-after"] ?? "") ?? 0 > 0)
        #expect(known.text == unknown.text || known.headers["retry-after"] != unknown.headers["retry-after"])
        // Someone else's budget is their own.
        let cy = try await Self.account(server, "cy")
        #expect(try await Self.invite(server, cy, try await Self.room(server, cy), "ben@example.org").status == 202)
    }

    @Test("a room holds at most 1,000 members and pending invitations together (409 beyond)")
    func roomBound() async throws {
        let server = try await TestServer.start(.sqlite) {
            $0.installStarterLibrary = false
            $0.limits.invitationsPerHour = 2_000
            $0.limits.invitationsPerDay = 2_000
        }
        defer { Task { await server.stop() } }
        let ada = try await Self.account(server, "ada")
        let room = try await Self.room(server, ada)
        var statuses: [Int: Int] = [:]
        for n in 0..<1_000 { statuses[try await Self.invite(server, ada, room, "p\(n)@example.org").status, default: 0] += 1 }
        #expect(statuses == [202: 1_000])
        let over = try await Self.invite(server, ada, room, "one-more@example.org")
        #expect(over.status == 409 && over.text.contains("1000"))
        // Inviting someone already invited again is no new place.
        #expect(try await Self.invite(server, ada, room, "p7@example.org").status == 202)
        #expect(try await server.request(.DELETE, "/api/rooms/\(room)/invitations/p7%40example.org", headers: ada).status == 200)
        #expect(try await Self.invite(server, ada, room, "one-more@example.org").status == 202)
    }
}
