import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdBcrypt
import Storage
import MoleculeLibrary
import NIOPosix
import SketchRooms

/// Who sent a request: an account (by session cookie or bearer token), a guest (by guest key), or
/// nobody.
struct Identity: Sendable {
    var account: StoredAccount?
    var session: StoredSession?
    /// Signed in by the cookie: changes then need the CSRF token (a bearer token cannot be sent by
    /// another site's page, a cookie can).
    var viaCookie = false
    /// `g` and 16 hex digits of the guest key's hash: others see this, never the key.
    var guestID: String?

    var actor: Participant? {
        if let account { return Participant(id: account.id) }
        return guestID.map { Participant(id: $0, isGuest: true) }
    }
    var displayName: String { account?.name ?? "Guest \(guestID?.dropFirst().prefix(4) ?? "")" }
}

/// Accounts and sessions: register, sign in and out, the profile; and who a request comes from.
struct Accounts: Sendable {
    let store: any AccountStore
    /// The rooms a profile lists.
    let rooms: RoomSummaries
    /// Invitations to rooms, by e-mail (`InvitationRoutes`).
    let invitations: any InvitationStore
    let throttle = SignInThrottle()
    /// bcrypt hashes (registrations, sign-ins) per client address: each costs tens of milliseconds of CPU.
    let passwordHashes: RateLimiter
    static let cookieName = "proteinar_session"
    static let sessionLifetime: TimeInterval = 30 * 24 * 3600
    /// bcrypt's work factor: about 60 ms a hash on one core here, so guessing is slow and signing in is not.
    static let bcryptCost: UInt8 = 10

    func register(on api: RouterGroup<ServerContext>) {
        api.post("accounts") { request, context in try await create(request, context) }
        api.post("sessions") { request, context in try await signIn(request, context) }
        api.delete("sessions/current") { request, _ in try await signOut(request) }
        api.get("session") { request, _ in try await current(request) }
        api.get("profile") { request, _ in try await profile(request) }
        api.patch("profile") { request, _ in try await rename(request) }
    }

    // MARK: Who is asking

    /// A bearer token is read from the `Authorization` header only: a URL ends up in logs and histories.
    func identify(_ request: Request, guestKey queryGuest: String? = nil) async throws -> Identity {
        var identity = Identity()
        let header = request.headers[.authorization].flatMap { auth in
            auth.lowercased().hasPrefix("bearer ") ? String(auth.dropFirst(7)).trimmingCharacters(in: .whitespaces) : nil
        }
        if let token = header {
            guard let found = try await session(token) else { throw APIError(.unauthorized, "the token is not valid (signed out or expired)") }
            identity.session = found.0; identity.account = found.1
        } else if let cookie = request.cookies[Self.cookieName], let found = try await session(cookie.value) {
            identity.session = found.0; identity.account = found.1; identity.viaCookie = true
        }
        if identity.account == nil, let key = request.headers[HTTPField.Name("X-Guest-Key")!] ?? queryGuest {
            identity.guestID = try Self.guestID(key)
        }
        return identity
    }

    /// The sender's identity, refusing a cookie-signed change without the CSRF token.
    func identifyForChange(_ request: Request) async throws -> Identity {
        let identity = try await identify(request)
        if identity.viaCookie, let session = identity.session {
            guard let sent = request.headers[HTTPField.Name("X-CSRF-Token")!], Self.same(sent, session.csrf) else {
                throw APIError(.forbidden, "missing or wrong X-CSRF-Token header (GET /api/session gives it)")
            }
        }
        return identity
    }

    func requireAccount(_ request: Request, change: Bool) async throws -> (StoredAccount, Identity) {
        let identity = change ? try await identifyForChange(request) : try await identify(request)
        guard let account = identity.account else { throw APIError(.unauthorized, "sign in first") }
        return (account, identity)
    }

    private func session(_ token: String) async throws -> (StoredSession, StoredAccount)? {
        guard (16...128).contains(token.utf8.count) else { return nil }
        guard let session = try await store.session(tokenHash: Self.hash(token)),
              let account = try await store.account(id: session.accountID) else { return nil }
        return (session, account)
    }

    static func guestID(_ key: String) throws -> String {
        guard (16...64).contains(key.utf8.count), key.utf8.allSatisfy(RoomState.isIDByte) else {
            throw APIError(.badRequest, "guest key: 16 to 64 letters, digits, '-' or '_'")
        }
        return "g" + hash("guest\u{0}" + key).prefix(16)
    }

    // MARK: Routes

    struct Credentials: Decodable {
        var email: String
        var password: String
        var name: String?
        var kind: String?
    }

    func create(_ request: Request, _ context: ServerContext) async throws -> Response {
        let body = try await Self.decode(Credentials.self, from: request, example: #"{"email": "…", "password": "…", "name": "…"}"#)
        let email = try Self.validEmail(body.email)
        guard (8...128).contains(body.password.count) else { throw APIError(.badRequest, "password: 8 to 128 characters") }
        let name = try Self.oneLine(body.name ?? String(email.prefix { $0 != "@" }), field: "name", maximum: 80)
        let kind = try Self.kind(body.kind)
        let password = body.password
        try call { try passwordHashes.take(context.clientAddress, what: "registrations and sign-ins") }
        let hash = try await NIOThreadPool.singleton.runIfActive { Bcrypt.hash(password, cost: Self.bcryptCost) }
        let account = StoredAccount(id: "a" + RandomToken.hex(), email: email, name: name, passwordHash: hash, createdAt: Date())
        guard try await store.createAccount(account) else { throw APIError(.conflict, "an account with this e-mail exists already; sign in instead") }
        // The first account of a server is its administrator: read back what was stored.
        return try await startSession(for: try await store.account(id: account.id) ?? account, kind: kind, request: request, status: .created)
    }

    func signIn(_ request: Request, _ context: ServerContext) async throws -> Response {
        let body = try await Self.decode(Credentials.self, from: request, example: #"{"email": "…", "password": "…"}"#)
        let email = body.email.trimmingCharacters(in: .whitespaces).lowercased()
        let kind = try Self.kind(body.kind)
        try call { try passwordHashes.take(context.clientAddress, what: "registrations and sign-ins") }
        // Failures count per e-mail *and* address: a stranger failing on purpose slows only
        // their own address's attempts, never the owner's from elsewhere.
        let throttled = email + "\u{0}" + context.clientAddress
        try await throttle.begin(throttled)
        let account: StoredAccount?
        let matches: Bool
        do {
            account = try await store.account(email: email)
            let password = body.password
            // A made-up hash when the e-mail is unknown: the answer takes as long either way.
            let storedHash = account?.passwordHash ?? Self.decoyHash
            matches = try await NIOThreadPool.singleton.runIfActive { password.count <= 128 && Bcrypt.verify(password, hash: storedHash) }
        } catch {
            await throttle.end(throttled, succeeded: false, counts: false)
            throw error
        }
        await throttle.end(throttled, succeeded: matches && account != nil)
        guard matches, let account else { throw APIError(.unauthorized, "wrong e-mail or password") }
        return try await startSession(for: account, kind: kind, request: request, status: .ok)
    }

    func signOut(_ request: Request) async throws -> Response {
        let identity = try await identifyForChange(request)
        if let session = identity.session { try await store.deleteSession(tokenHash: session.tokenHash) }
        var response = Response(status: .noContent)
        response.setCookie(Cookie(name: Self.cookieName, value: "", maxAge: 0, path: "/", secure: Self.isHTTPS(request), httpOnly: true, sameSite: .lax))
        return response
    }

    func current(_ request: Request) async throws -> Response {
        let identity = try await identify(request)
        return try Responses.encoded(SessionJSON(account: identity.account.map(AccountJSON.init), csrf: identity.session?.csrf))
    }

    func profile(_ request: Request) async throws -> Response {
        let (account, _) = try await requireAccount(request, change: false)
        let (rooms, _) = try await self.rooms.list(for: Participant(id: account.id)) {
            $0.ownerID == account.id || $0.members.contains(account.id)
        }
        return try Responses.encoded(ProfileJSON(account: AccountJSON(account), rooms: rooms))
    }

    func rename(_ request: Request) async throws -> Response {
        let (account, _) = try await requireAccount(request, change: true)
        struct Rename: Decodable { var name: String }
        let name = try Self.oneLine(try await Self.decode(Rename.self, from: request, example: #"{"name": "…"}"#).name, field: "name", maximum: 80)
        try await store.renameAccount(id: account.id, name: name)
        var renamed = account
        renamed.name = name
        return try Responses.encoded(AccountJSON(renamed))
    }

    private func startSession(for account: StoredAccount, kind: String, request: Request, status: HTTPResponse.Status) async throws -> Response {
        let token = RandomToken.hex(bytes: 32)
        let session = StoredSession(tokenHash: Self.hash(token), accountID: account.id, csrf: RandomToken.hex(bytes: 16),
                                    expiresAt: Date().addingTimeInterval(Self.sessionLifetime))
        try await store.createSession(session)
        var response = try Responses.encoded(SessionJSON(account: AccountJSON(account), csrf: session.csrf, token: kind == "token" ? token : nil), status: status)
        if kind == "cookie" {
            response.setCookie(Cookie(name: Self.cookieName, value: token, maxAge: Int(Self.sessionLifetime), path: "/",
                                      secure: Self.isHTTPS(request), httpOnly: true, sameSite: .lax))
        }
        return response
    }

    // MARK: Checks

    static func decode<T: Decodable>(_ type: T.Type, from request: Request, example: String) async throws -> T {
        guard (request.headers[.contentType] ?? "").hasPrefix("application/json") else {
            throw APIError(.unsupportedMediaType, "send JSON (Content-Type: application/json), e.g. \(example)")
        }
        let body = try await call { try await request.body.collect(upTo: 64 << 10) }
        do { return try JSONDecoder().decode(T.self, from: Data(body.readableBytesView)) } catch {
            throw APIError(.badRequest, "expected \(example): \(RoomJSONErrors.describe(error))")
        }
    }

    static func validEmail(_ raw: String) throws -> String {
        let email = raw.trimmingCharacters(in: .whitespaces).lowercased()
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard email.count <= 254, parts.count == 2, !parts[0].isEmpty, parts[1].contains("."),
              !parts[1].hasPrefix("."), !parts[1].hasSuffix("."), !email.contains(where: { $0.isWhitespace || $0.isNewline }) else {
            throw APIError(.badRequest, "email '\(raw.prefix(80))': expected an address like name@example.org")
        }
        return email
    }

    /// A name (of a person, a room): trimmed, 1 to `maximum` characters on one line.
    static func oneLine(_ raw: String, field: String, maximum: Int) throws -> String {
        let text = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...maximum).contains(text.count), !text.contains(where: \.isNewline) else {
            throw APIError(.badRequest, "\(field): 1 to \(maximum) characters on one line")
        }
        return text
    }

    static func kind(_ raw: String?) throws -> String {
        let kind = raw ?? "cookie"
        guard kind == "cookie" || kind == "token" else { throw APIError(.badRequest, "kind '\(kind.prefix(20))': accepted: cookie, token") }
        return kind
    }

    static func hash(_ text: String) -> String {
        Hashing.sha256Hex(Array(text.utf8))
    }

    /// Compares in time independent of where the strings differ.
    static func same(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }

    static func isHTTPS(_ request: Request) -> Bool {
        request.head.scheme == "https" || request.headers[HTTPField.Name("X-Forwarded-Proto")!]?.lowercased() == "https"
    }

    static let decoyHash = Bcrypt.hash("not a password of anyone", cost: bcryptCost)
}

/// Slows sign-in for an e-mail from one address after repeated failures there: 5 in 15 minutes,
/// then each attempt waits 1, 2, 4, at most 8 seconds, and only one attempt at a time is taken
/// (others get 429), so guesses cannot be sent in parallel to get around the wait. Keyed by e-mail
/// and address, so that nobody can lock an account's owner out by failing on purpose elsewhere
/// (guessing from many addresses is held by each one's wait and the password hashes per address).
actor SignInThrottle {
    private var failures: [String: [Date]] = [:]
    private var inFlight: Set<String> = []
    static let window: TimeInterval = 15 * 60
    static let free = 5

    func begin(_ key: String) async throws {
        let recent = prune(key)
        guard recent >= Self.free else { return }
        guard inFlight.insert(key).inserted else {
            throw APIError(.tooManyRequests, "too many failed sign-ins for this e-mail from your address; wait a few seconds and try again",
                           retryAfter: 8)
        }
        try? await Task.sleep(for: .seconds(min(8.0, pow(2.0, Double(recent - Self.free)))))
    }

    func end(_ key: String, succeeded: Bool, counts: Bool = true) {
        inFlight.remove(key)
        guard counts else { return }
        if succeeded { failures[key] = nil; return }
        failures[key, default: []].append(Date())
        if failures.count > 100_000 { failures = failures.filter { $0.value.contains { -$0.timeIntervalSinceNow < Self.window } } }
    }

    private func prune(_ key: String) -> Int {
        let kept = (failures[key] ?? []).filter { -$0.timeIntervalSinceNow < Self.window }
        failures[key] = kept.isEmpty ? nil : kept
        return kept.count
    }
}
