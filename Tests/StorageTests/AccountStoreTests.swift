import Foundation
import Storage
import TestSupport
import Testing

/// Accounts and sessions in both stores: unique e-mails, sessions that expire and end.
@Suite("Account store")
struct AccountStoreTests {
    @Test("one account per e-mail; sessions found by token hash until they expire or end", arguments: StoreKind.allCases)
    func accounts(kind: StoreKind) async throws {
        let (store, cleanup) = try await TestStores.open(kind, cacheLimit: 1 << 20)
        defer { Task { await cleanup() } }
        try await store.migrate()
        let ada = StoredAccount(id: "a1", email: "ada@example.org", name: "Ada", passwordHash: "$2b$10$x", createdAt: Date())
        #expect(try await store.createAccount(ada))
        #expect(try await store.createAccount(StoredAccount(id: "a2", email: "ada@example.org", name: "Other", passwordHash: "h", createdAt: Date())) == false)
        #expect(try await store.account(email: "ada@example.org")?.id == "a1")
        #expect(try await store.account(id: "a2") == nil)
        try await store.renameAccount(id: "a1", name: "Ada L.")
        #expect(try await store.account(id: "a1")?.name == "Ada L.")

        try await store.createSession(StoredSession(tokenHash: "live", accountID: "a1", csrf: "c", expiresAt: Date().addingTimeInterval(60)))
        try await store.createSession(StoredSession(tokenHash: "old", accountID: "a1", csrf: "c", expiresAt: Date().addingTimeInterval(-1)))
        #expect(try await store.session(tokenHash: "live")?.accountID == "a1")
        #expect(try await store.session(tokenHash: "old") == nil)
        try await store.deleteSession(tokenHash: "live")
        #expect(try await store.session(tokenHash: "live") == nil)
    }
}
