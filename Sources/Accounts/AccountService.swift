import Foundation
import HummingbirdBcrypt
import NIOConcurrencyHelpers
import NIOPosix
import Rooms
import Storage

/// Accounts and sessions without HTTP: who a token, cookie or guest key names; registering,
/// signing in and out, renaming; and the rules names and e-mail addresses follow. The server's
/// `AccountRoutes` and `IdentityMiddleware` put it on the web.
public struct AccountService: Sendable {
    public let store: any AccountStore
    let throttle = SignInThrottle()
    /// Sessions looked up in the store since the server started (`/healthz?detail=true`): one per
    /// request that sends a cookie or token to a route that asks who is there.
    public let sessionLookups = NIOLockedValueBox(0)
    public static let sessionLifetime: TimeInterval = 30 * 24 * 3600
    /// bcrypt's work factor: about 60 ms a hash on one core here, so guessing is slow and signing in is not.
    static let bcryptCost: UInt8 = 10

    public init(store: any AccountStore) { self.store = store }

    // MARK: Who is asking

    /// The identity that a bearer token (from the `Authorization` header only: a URL ends up in
    /// logs and histories), else a session cookie, and for someone not signed in a guest key, name.
    public func identify(bearer: String?, cookie: String?, guestKey: String?) async throws -> Identity {
        var identity = Identity()
        if let token = bearer {
            guard let found = try await session(token) else {
                identity.refusal = AccountError(.unauthorized, "the token is not valid (signed out or expired)")
                return identity
            }
            identity.session = found.0; identity.account = found.1
        } else if let cookie, let found = try await session(cookie) {
            identity.session = found.0; identity.account = found.1; identity.viaCookie = true
        }
        if identity.account == nil, let key = guestKey {
            do { identity.guestID = try Self.guestID(key) } catch { identity.refusal = error }
        }
        return identity
    }

    /// `identity` for a change: a cookie-signed change needs the session's CSRF token (`sent`).
    public static func forChange(_ identity: Identity, csrf sent: String?) throws(AccountError) -> Identity {
        let identity = try identity.checked()
        if identity.viaCookie, let session = identity.session {
            guard let sent, same(sent, session.csrf) else {
                throw AccountError(.forbidden, "missing or wrong X-CSRF-Token header (GET /api/session gives it)")
            }
        }
        return identity
    }

    private func session(_ token: String) async throws -> (StoredSession, StoredAccount)? {
        guard (16...128).contains(token.utf8.count) else { return nil }
        sessionLookups.withLockedValue { $0 += 1 }
        guard let session = try await store.session(tokenHash: Self.hash(token)),
              let account = try await store.account(id: session.accountID) else { return nil }
        return (session, account)
    }

    public static func guestID(_ key: String) throws(AccountError) -> String {
        guard (16...64).contains(key.utf8.count), key.utf8.allSatisfy(RoomState.isIDByte) else {
            throw AccountError(.badRequest, "guest key: 16 to 64 letters, digits, '-' or '_'")
        }
        return "g" + hash("guest\u{0}" + key).prefix(16)
    }

    // MARK: Accounts and sessions

    /// A new session's token (sent once, never stored) and what is stored of it.
    public struct NewSession: Sendable {
        public var account: StoredAccount
        public var session: StoredSession
        public var token: String
    }

    /// Registers an account (the first of a server is its administrator) and signs it in.
    /// A registration form, checked: what `register` stores. Checking it is cheap, so a bad form
    /// is refused before any password is hashed for it.
    public struct Registration: Sendable {
        public let email: String
        public let password: String
        public let name: String

        public init(email rawEmail: String, password: String, name: String?) throws(AccountError) {
            email = try AccountService.validEmail(rawEmail)
            guard (8...128).contains(password.count) else { throw AccountError(.badRequest, "password: 8 to 128 characters") }
            self.password = password
            self.name = try AccountService.oneLine(name ?? String(email.prefix { $0 != "@" }), field: "name", maximum: 80)
        }
    }

    public func register(_ form: Registration) async throws -> NewSession {
        let password = form.password
        let hash = try await NIOThreadPool.singleton.runIfActive { Bcrypt.hash(password, cost: Self.bcryptCost) }
        let account = StoredAccount(id: "a" + RandomToken.hex(), email: form.email, name: form.name, passwordHash: hash, createdAt: Date())
        guard try await store.createAccount(account) else {
            throw AccountError(.conflict, "an account with this e-mail exists already; sign in instead")
        }
        // The first account of a server is its administrator: read back what was stored.
        return try await startSession(for: try await store.account(id: account.id) ?? account)
    }

    /// Signs in with e-mail and password. Failures count per e-mail *and* `address`: a stranger
    /// failing on purpose slows only their own address's attempts, never the owner's from elsewhere.
    public func signIn(email rawEmail: String, password: String, from address: String) async throws -> NewSession {
        let email = rawEmail.trimmingCharacters(in: .whitespaces).lowercased()
        let throttled = email + "\u{0}" + address
        try await throttle.begin(throttled)
        let account: StoredAccount?
        let matches: Bool
        do {
            account = try await store.account(email: email)
            // A made-up hash when the e-mail is unknown: the answer takes as long either way.
            let storedHash = account?.passwordHash ?? Self.decoyHash
            matches = try await NIOThreadPool.singleton.runIfActive { password.count <= 128 && Bcrypt.verify(password, hash: storedHash) }
        } catch {
            await throttle.end(throttled, succeeded: false, counts: false)
            throw error
        }
        await throttle.end(throttled, succeeded: matches && account != nil)
        guard matches, let account else { throw AccountError(.unauthorized, "wrong e-mail or password") }
        return try await startSession(for: account)
    }

    public func signOut(_ identity: Identity) async throws {
        if let session = identity.session { try await store.deleteSession(tokenHash: session.tokenHash) }
    }

    public func rename(_ account: StoredAccount, to raw: String) async throws -> StoredAccount {
        let name = try Self.oneLine(raw, field: "name", maximum: 80)
        try await store.renameAccount(id: account.id, name: name)
        var renamed = account
        renamed.name = name
        return renamed
    }

    private func startSession(for account: StoredAccount) async throws -> NewSession {
        let token = RandomToken.hex(bytes: 32)
        let session = StoredSession(tokenHash: Self.hash(token), accountID: account.id, csrf: RandomToken.hex(bytes: 16),
                                    expiresAt: Date().addingTimeInterval(Self.sessionLifetime))
        try await store.createSession(session)
        return NewSession(account: account, session: session, token: token)
    }

    // MARK: Rules

    public static func validEmail(_ raw: String) throws(AccountError) -> String {
        let email = raw.trimmingCharacters(in: .whitespaces).lowercased()
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard email.count <= 254, parts.count == 2, !parts[0].isEmpty, parts[1].contains("."),
              !parts[1].hasPrefix("."), !parts[1].hasSuffix("."), !email.contains(where: { $0.isWhitespace || $0.isNewline }) else {
            throw AccountError(.badRequest, "email '\(raw.prefix(80))': expected an address like name@example.org")
        }
        return email
    }

    /// A name (of a person, a room): trimmed, 1 to `maximum` characters on one line.
    public static func oneLine(_ raw: String, field: String, maximum: Int) throws(AccountError) -> String {
        let text = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...maximum).contains(text.count), !text.contains(where: \.isNewline) else {
            throw AccountError(.badRequest, "\(field): 1 to \(maximum) characters on one line")
        }
        return text
    }

    static func hash(_ text: String) -> String {
        Hashing.sha256Hex(Array(text.utf8))
    }

    /// Compares in time independent of where the strings differ.
    public static func same(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }

    static let decoyHash = Bcrypt.hash("not a password of anyone", cost: bcryptCost)
}
