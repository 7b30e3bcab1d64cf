import Foundation
import PostgresNIO

extension PostgresLibraryStore {
    public func createAccount(_ a: StoredAccount) async throws -> Bool {
        let logger = logger
        return try await client.withTransaction(logger: logger) { db in
            // Servers registering the first accounts at once: one at a time, so only one is first.
            try await db.query("SELECT pg_advisory_xact_lock(784513)", logger: logger)
            let rows = try await db.query("""
                INSERT INTO accounts (id, email, name, password_hash, created_at, is_admin)
                SELECT \(a.id), \(a.email), \(a.name), \(a.passwordHash), \(a.createdAt.timeIntervalSince1970),
                       \(a.isAdmin) OR NOT EXISTS (SELECT 1 FROM accounts)
                ON CONFLICT DO NOTHING RETURNING id
                """, logger: logger)
            for try await _ in rows.decode(String.self) { return true }
            return false
        }
    }

    public func setAdministrator(email: String, _ isAdmin: Bool) async throws -> Bool {
        let rows = try await client.query("UPDATE accounts SET is_admin = \(isAdmin) WHERE email = \(email) RETURNING id", logger: logger)
        for try await _ in rows.decode(String.self) { return true }
        return false
    }

    public func account(id: String) async throws -> StoredAccount? {
        try await firstAccount(client.query("SELECT id, email, name, password_hash, created_at, is_admin FROM accounts WHERE id = \(id)", logger: logger))
    }

    public func account(email: String) async throws -> StoredAccount? {
        try await firstAccount(client.query("SELECT id, email, name, password_hash, created_at, is_admin FROM accounts WHERE email = \(email)", logger: logger))
    }

    private func firstAccount(_ rows: PostgresRowSequence) async throws -> StoredAccount? {
        for try await (id, email, name, hash, created, admin) in rows.decode((String, String, String, String, Double, Bool).self) {
            return StoredAccount(id: id, email: email, name: name, passwordHash: hash, createdAt: Date(timeIntervalSince1970: created),
                                 isAdmin: admin)
        }
        return nil
    }

    public func renameAccount(id: String, name: String) async throws {
        try await client.query("UPDATE accounts SET name = \(name) WHERE id = \(id)", logger: logger)
    }

    public func createSession(_ s: StoredSession) async throws {
        try await client.query("""
            INSERT INTO sessions (token_hash, account_id, csrf, expires_at)
            VALUES (\(s.tokenHash), \(s.accountID), \(s.csrf), \(s.expiresAt.timeIntervalSince1970))
            """, logger: logger)
        try await client.query("DELETE FROM sessions WHERE expires_at < \(Date().timeIntervalSince1970)", logger: logger)
    }

    public func session(tokenHash: String) async throws -> StoredSession? {
        let rows = try await client.query("""
            SELECT token_hash, account_id, csrf, expires_at FROM sessions
            WHERE token_hash = \(tokenHash) AND expires_at > \(Date().timeIntervalSince1970)
            """, logger: logger)
        for try await (hash, account, csrf, expires) in rows.decode((String, String, String, Double).self) {
            return StoredSession(tokenHash: hash, accountID: account, csrf: csrf, expiresAt: Date(timeIntervalSince1970: expires))
        }
        return nil
    }

    public func deleteSession(tokenHash: String) async throws {
        try await client.query("DELETE FROM sessions WHERE token_hash = \(tokenHash)", logger: logger)
    }
}
