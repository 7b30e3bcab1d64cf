import Foundation
import PostgresNIO

extension PostgresLibraryStore {
    public func createAccount(_ a: StoredAccount) async throws -> Bool {
        let rows = try await client.query("""
            INSERT INTO accounts (id, email, name, password_hash, created_at)
            VALUES (\(a.id), \(a.email), \(a.name), \(a.passwordHash), \(a.createdAt.timeIntervalSince1970))
            ON CONFLICT DO NOTHING RETURNING id
            """, logger: logger)
        for try await _ in rows.decode(String.self) { return true }
        return false
    }

    public func account(id: String) async throws -> StoredAccount? {
        try await firstAccount(client.query("SELECT id, email, name, password_hash, created_at FROM accounts WHERE id = \(id)", logger: logger))
    }

    public func account(email: String) async throws -> StoredAccount? {
        try await firstAccount(client.query("SELECT id, email, name, password_hash, created_at FROM accounts WHERE email = \(email)", logger: logger))
    }

    private func firstAccount(_ rows: PostgresRowSequence) async throws -> StoredAccount? {
        for try await (id, email, name, hash, created) in rows.decode((String, String, String, String, Double).self) {
            return StoredAccount(id: id, email: email, name: name, passwordHash: hash, createdAt: Date(timeIntervalSince1970: created))
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
