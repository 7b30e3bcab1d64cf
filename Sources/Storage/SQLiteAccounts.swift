import Foundation
import GRDB

extension SQLiteLibraryStore {
    public func createAccount(_ a: StoredAccount) async throws -> Bool {
        try await pool.write { db in
            // The write transaction makes "first" exact: no other account is added meanwhile.
            try db.execute(sql: """
                INSERT OR IGNORE INTO accounts (id, email, name, password_hash, created_at, is_admin)
                VALUES (?, ?, ?, ?, ?, CASE WHEN EXISTS (SELECT 1 FROM accounts) THEN ? ELSE 1 END)
                """, arguments: [a.id, a.email, a.name, a.passwordHash, a.createdAt.timeIntervalSince1970, a.isAdmin])
            return db.changesCount == 1
        }
    }

    public func setAdministrator(email: String, _ isAdmin: Bool) async throws -> Bool {
        try await pool.write { db in
            try db.execute(sql: "UPDATE accounts SET is_admin = ? WHERE email = ?", arguments: [isAdmin, email])
            return db.changesCount == 1
        }
    }

    public func account(id: String) async throws -> StoredAccount? {
        try await pool.read { db in try Row.fetchOne(db, sql: "SELECT * FROM accounts WHERE id = ?", arguments: [id]).map(Self.account) }
    }

    public func account(email: String) async throws -> StoredAccount? {
        try await pool.read { db in try Row.fetchOne(db, sql: "SELECT * FROM accounts WHERE email = ?", arguments: [email]).map(Self.account) }
    }

    public func renameAccount(id: String, name: String) async throws {
        try await pool.write { db in try db.execute(sql: "UPDATE accounts SET name = ? WHERE id = ?", arguments: [name, id]) }
    }

    static func account(_ row: Row) -> StoredAccount {
        StoredAccount(id: row["id"], email: row["email"], name: row["name"], passwordHash: row["password_hash"],
                      createdAt: Date(timeIntervalSince1970: row["created_at"]), isAdmin: row["is_admin"])
    }

    public func createSession(_ s: StoredSession) async throws {
        try await pool.write { db in
            try db.execute(sql: "INSERT INTO sessions (token_hash, account_id, csrf, expires_at) VALUES (?, ?, ?, ?)",
                           arguments: [s.tokenHash, s.accountID, s.csrf, s.expiresAt.timeIntervalSince1970])
            // Expired sessions go when new ones come, so the table stays the size of the live ones.
            try db.execute(sql: "DELETE FROM sessions WHERE expires_at < ?", arguments: [Date().timeIntervalSince1970])
        }
    }

    public func session(tokenHash: String) async throws -> StoredSession? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM sessions WHERE token_hash = ? AND expires_at > ?",
                             arguments: [tokenHash, Date().timeIntervalSince1970]).map { row in
                StoredSession(tokenHash: row["token_hash"], accountID: row["account_id"], csrf: row["csrf"],
                              expiresAt: Date(timeIntervalSince1970: row["expires_at"]))
            }
        }
    }

    public func deleteSession(tokenHash: String) async throws {
        try await pool.write { db in try db.execute(sql: "DELETE FROM sessions WHERE token_hash = ?", arguments: [tokenHash]) }
    }
}
