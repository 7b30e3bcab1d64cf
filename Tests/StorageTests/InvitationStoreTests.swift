import Foundation
import Storage
import TestSupport
import Testing

/// Room invitations in both stores: by room and e-mail, bounded per room, renewed not doubled, and
/// kept when the store is migrated again.
@Suite("Invitation store")
struct InvitationStoreTests {
    @Test("invitations by room and by e-mail; the room's bound; renewing; deleting; kept across migrations", arguments: StoreKind.allCases)
    func invitations(kind: StoreKind) async throws {
        let (store, cleanup) = try await TestStores.open(kind, cacheLimit: 1 << 20)
        defer { Task { await cleanup() } }
        try await store.migrate()
        #expect(try await store.createRoom(id: "r1", settingsJSON: "{}"))
        #expect(try await store.createRoom(id: "r2", settingsJSON: "{}"))
        let day = Date(timeIntervalSince1970: 1_800_000_000)
        func invitation(_ room: String, _ email: String, by: String = "owner", at offset: TimeInterval = 0) -> StoredInvitation {
            StoredInvitation(roomID: room, email: email, invitedBy: by, invitedAt: day.addingTimeInterval(offset))
        }
        #expect(try await store.invite(invitation("r1", "ben@example.org"), limit: 2))
        #expect(try await store.invite(invitation("r1", "ada@example.org", at: 1), limit: 2))
        // The room has its two: a third e-mail is refused, the same one again is renewed.
        #expect(try await store.invite(invitation("r1", "cy@example.org"), limit: 2) == false)
        #expect(try await store.invite(invitation("r1", "ben@example.org", by: "owner2", at: 5), limit: 2))
        #expect(try await store.invitations(roomID: "r1").map(\.email) == ["ada@example.org", "ben@example.org"])
        #expect(try await store.invitations(roomID: "r1").first { $0.email == "ben@example.org" }
                == invitation("r1", "ben@example.org", by: "owner2", at: 5))
        #expect(try await store.invite(invitation("r2", "ben@example.org", at: 10), limit: 2))
        // Ben's, newest first; nobody else's.
        #expect(try await store.invitations(email: "ben@example.org").map(\.roomID) == ["r2", "r1"])
        #expect(try await store.invitations(email: "cy@example.org").isEmpty)
        #expect(try await store.deleteInvitation(roomID: "r1", email: "ben@example.org"))
        #expect(try await store.deleteInvitation(roomID: "r1", email: "ben@example.org") == false)
        #expect(try await store.invitations(email: "ben@example.org").map(\.roomID) == ["r2"])
        // Migrating again (a restart, a second server) keeps what is stored.
        try await store.migrate()
        #expect(try await store.invitations(roomID: "r1").map(\.email) == ["ada@example.org"])
        #expect(try await store.invitations(roomID: "r2").map(\.email) == ["ben@example.org"])
    }
}
