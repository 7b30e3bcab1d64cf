import Foundation

/// Accounts and their sign-in sessions, kept beside the library so that every server on a shared
/// database knows every session. Only hashes are stored: bcrypt for passwords, SHA-256 for session
/// tokens, so a copy of the database signs nobody in.
public protocol AccountStore: Sendable {
    /// Adds the account; false (and nothing changed) when its e-mail is taken. The first account of
    /// a store is made its administrator, whatever `account.isAdmin` says.
    func createAccount(_ account: StoredAccount) async throws -> Bool
    /// Makes the account with this e-mail an administrator (or not); false when there is none.
    func setAdministrator(email: String, _ isAdmin: Bool) async throws -> Bool
    func account(id: String) async throws -> StoredAccount?
    /// E-mails are compared as stored: callers lower-case them first.
    func account(email: String) async throws -> StoredAccount?
    func renameAccount(id: String, name: String) async throws
    func createSession(_ session: StoredSession) async throws
    /// The session with this token hash, if it has not expired.
    func session(tokenHash: String) async throws -> StoredSession?
    func deleteSession(tokenHash: String) async throws
}

public struct StoredAccount: Sendable, Equatable {
    public var id: String
    public var email: String
    public var name: String
    public var passwordHash: String
    public var createdAt: Date
    /// May delete any molecule of the library.
    public var isAdmin: Bool
    public init(id: String, email: String, name: String, passwordHash: String, createdAt: Date, isAdmin: Bool = false) {
        self.id = id; self.email = email; self.name = name; self.passwordHash = passwordHash; self.createdAt = createdAt
        self.isAdmin = isAdmin
    }
}

public struct StoredSession: Sendable, Equatable {
    public var tokenHash: String
    public var accountID: String
    /// The value a cookie-signed request must repeat in `X-CSRF-Token`.
    public var csrf: String
    public var expiresAt: Date
    public init(tokenHash: String, accountID: String, csrf: String, expiresAt: Date) {
        self.tokenHash = tokenHash; self.accountID = accountID; self.csrf = csrf; self.expiresAt = expiresAt
    }
}
