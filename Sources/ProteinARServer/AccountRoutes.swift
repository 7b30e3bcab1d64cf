import Accounts
import Foundation
import HTTPTypes
import Hummingbird
import LiveRooms
import Rooms
import Storage

/// Accounts over HTTP (`/api/accounts`, `/api/sessions`, `/api/session`, `/api/profile`): the
/// request and answer forms, the session cookie, and how many password hashes one address may ask
/// for; the accounts themselves are `AccountService`'s. Other routes read who is asking from the
/// request's context (`IdentityMiddleware`).
struct AccountRoutes: Sendable {
    let service: AccountService
    /// The rooms a profile lists.
    let rooms: RoomSummaries
    /// Invitations to rooms, by e-mail (`InvitationRoutes`).
    let invitations: any InvitationStore
    /// bcrypt hashes (registrations, sign-ins) per client address: each costs tens of milliseconds of CPU.
    let passwordHashes: RateLimiter
    static let cookieName = "proteinar_session"

    var store: any AccountStore { service.store }

    func register(on api: RouterGroup<ServerContext>) {
        api.post("accounts") { request, context in try await create(request, context) }
        api.post("sessions") { request, context in try await signIn(request, context) }
        api.delete("sessions/current") { request, context in try await signOut(request, context) }
        api.get("session") { _, context in try current(context) }
        api.get("profile") { request, context in try await profile(request, context) }
        api.patch("profile") { request, context in try await rename(request, context) }
    }

    struct Credentials: Decodable {
        var email: String
        var password: String
        var name: String?
        var kind: String?
    }

    func create(_ request: Request, _ context: ServerContext) async throws -> Response {
        let body = try await JSONBody.decode(Credentials.self, from: request, example: #"{"email": "…", "password": "…", "name": "…"}"#)
        // The form is checked before a password is hashed for it.
        let form = try call { try AccountService.Registration(email: body.email, password: body.password, name: body.name) }
        let kind = try Self.kind(body.kind)
        try call { try passwordHashes.take(context.clientAddress, what: "registrations and sign-ins") }
        let started = try await call { try await service.register(form) }
        return try answer(started, kind: kind, request: request, status: .created)
    }

    func signIn(_ request: Request, _ context: ServerContext) async throws -> Response {
        let body = try await JSONBody.decode(Credentials.self, from: request, example: #"{"email": "…", "password": "…"}"#)
        let kind = try Self.kind(body.kind)
        try call { try passwordHashes.take(context.clientAddress, what: "registrations and sign-ins") }
        let started = try await call { try await service.signIn(email: body.email, password: body.password, from: context.clientAddress) }
        return try answer(started, kind: kind, request: request, status: .ok)
    }

    func signOut(_ request: Request, _ context: ServerContext) async throws -> Response {
        try await call { try await service.signOut(try context.identityForChange(request)) }
        var response = Response(status: .noContent)
        response.setCookie(Cookie(name: Self.cookieName, value: "", maxAge: 0, path: "/", secure: Self.isHTTPS(request), httpOnly: true, sameSite: .lax))
        return response
    }

    func current(_ context: ServerContext) throws -> Response {
        let identity = try context.checkedIdentity()
        return try Responses.encoded(SessionJSON(account: identity.account.map(AccountJSON.init), csrf: identity.session?.csrf))
    }

    func profile(_ request: Request, _ context: ServerContext) async throws -> Response {
        let (account, _) = try context.requireAccount(request, change: false)
        let (rooms, _) = try await self.rooms.list(for: Participant(id: account.id)) {
            $0.ownerID == account.id || $0.members.contains(account.id)
        }
        return try Responses.encoded(ProfileJSON(account: AccountJSON(account), rooms: rooms))
    }

    func rename(_ request: Request, _ context: ServerContext) async throws -> Response {
        let (account, _) = try context.requireAccount(request, change: true)
        struct Rename: Decodable { var name: String }
        let name = try await JSONBody.decode(Rename.self, from: request, example: #"{"name": "…"}"#).name
        return try Responses.encoded(AccountJSON(try await call { try await service.rename(account, to: name) }))
    }

    /// The new session as the client asked for it: a cookie (the web app), or the token in the answer.
    private func answer(_ started: AccountService.NewSession, kind: String, request: Request, status: HTTPResponse.Status) throws -> Response {
        var response = try Responses.encoded(SessionJSON(account: AccountJSON(started.account), csrf: started.session.csrf,
                                                         token: kind == "token" ? started.token : nil), status: status)
        if kind == "cookie" {
            response.setCookie(Cookie(name: Self.cookieName, value: started.token, maxAge: Int(AccountService.sessionLifetime), path: "/",
                                      secure: Self.isHTTPS(request), httpOnly: true, sameSite: .lax))
        }
        return response
    }

    static func kind(_ raw: String?) throws -> String {
        let kind = raw ?? "cookie"
        guard kind == "cookie" || kind == "token" else { throw APIError(.badRequest, "kind '\(kind.prefix(20))': accepted: cookie, token") }
        return kind
    }

    static func isHTTPS(_ request: Request) -> Bool {
        request.head.scheme == "https" || request.headers[HTTPField.Name("X-Forwarded-Proto")!]?.lowercased() == "https"
    }
}

/// A request's JSON body, decoded, or a 415/400 that says what was expected.
enum JSONBody {
    /// `limit`: the most bytes the body may have (413 past it).
    static func decode<T: Decodable>(_ type: T.Type, from request: Request, example: String, limit: Int = 64 << 10) async throws -> T {
        guard (request.headers[.contentType] ?? "").hasPrefix("application/json") else {
            throw APIError(.unsupportedMediaType, "send JSON (Content-Type: application/json), e.g. \(example)")
        }
        let body = try await call { try await request.body.collect(upTo: limit) }
        do { return try JSONDecoder().decode(T.self, from: Data(body.readableBytesView)) } catch {
            throw APIError(.badRequest, "expected \(example): \(RoomJSONErrors.describe(error))")
        }
    }
}
