import Accounts
import HTTPTypes
import Hummingbird
import HummingbirdAuth
import Storage

/// hummingbird-auth's authenticator for the routes that ask who sent a request (`buildRouter`'s
/// `asking` group): an account by bearer token or session cookie, a guest by guest key, or nobody,
/// into `context.identity`. Credentials that are not valid are kept as the identity's refusal and
/// refused where the route asks (`checkedIdentity()`), so a route that asks only sometimes serves
/// the request as it would anyone's otherwise. Routes that serve anyone alike (models, thumbnails,
/// tiles) skip it and look up who is there only before costly work (`identified(_:by:)`); the live
/// socket, upgraded before any route, asks `AccountService.identify` itself.
struct IdentityMiddleware<Context: AuthRequestContext<Identity>>: AuthenticatorMiddleware {
    let accounts: AccountService

    func authenticate(request: Request, context: Context) async throws -> Identity? {
        try await accounts.identify(request, guestKeyInQuery: false)
    }
}

extension AccountService {
    /// Who sent `request`: its bearer token, else its session cookie, and for someone not signed in
    /// its guest key (the `X-Guest-Key` header; with `guestKeyInQuery`, `?guest=` too: the live
    /// socket's, as a browser's WebSocket cannot send headers).
    func identify(_ request: Request, guestKeyInQuery: Bool) async throws -> Identity {
        let bearer = request.headers[.authorization].flatMap { auth in
            auth.lowercased().hasPrefix("bearer ") ? String(auth.dropFirst(7)).trimmingCharacters(in: .whitespaces) : nil
        }
        let guestKey = request.headers[HTTPField.Name("X-Guest-Key")!] ?? (guestKeyInQuery ? request.uri.queryParameters.get("guest").map { String($0) } : nil)
        return try await identify(bearer: bearer, cookie: request.cookies[AccountRoutes.cookieName]?.value, guestKey: guestKey)
    }
}

extension ServerContext {
    /// This context with who sent `request`, for a route without the authenticator that is about
    /// to start costly work (a conversion counts against the account's fair share, not the
    /// browser's): the session is looked up then, not for every model a phone fetches.
    func identified(_ request: Request, by accounts: AccountService) async throws -> ServerContext {
        guard identity == nil else { return self }
        var context = self
        context.identity = try await accounts.identify(request, guestKeyInQuery: false)
        return context
    }
}

extension AuthRequestContext where Identity == Accounts.Identity {
    /// Who sent the request, refusing credentials that are not valid.
    func checkedIdentity() throws -> Identity {
        try call { try (identity ?? Identity()).checked() }
    }

    /// Who sent a change, refusing a cookie-signed change without the CSRF token.
    func identityForChange(_ request: Request) throws -> Identity {
        try call { try AccountService.forChange(identity ?? Identity(), csrf: request.headers[HTTPField.Name("X-CSRF-Token")!]) }
    }

    /// The account that sent the request (a change: with the CSRF token when signed in by cookie).
    func requireAccount(_ request: Request, change: Bool) throws -> (StoredAccount, Identity) {
        let identity = change ? try identityForChange(request) : try checkedIdentity()
        guard let account = identity.account else { throw APIError(.unauthorized, "sign in first") }
        return (account, identity)
    }
}

/// An account refusal thrown straight from a route (a name or e-mail checked in place) answers as
/// the API's errors do.
extension AccountError: HTTPResponseError {
    public var status: HTTPResponse.Status { APIError.from(self).status }
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        try APIError.from(self).response(from: request, context: context)
    }
}
