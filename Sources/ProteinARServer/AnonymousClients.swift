import Accounts
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import MoleculeLibrary
import Storage

/// People without an account, told apart: each browser gets a client id of its own in a cookie,
/// signed by the server, so that a class of phones behind one address gets a fair share each
/// instead of one between them. An address may be handed a bounded number of ids (a script that
/// throws its cookies away shares its address's one share beyond that), and every id from one
/// address stays under that address's ceiling (`FairShare.perAddress`).
final class AnonymousClients: Sendable {
    static let cookieName = "proteinar_client"
    /// A year: the id names a browser, not a person, and carries nothing else.
    static let lifetime = 365 * 24 * 3600
    /// The signing key, made at each start (ids from before a restart are replaced): bytes, as
    /// `SymmetricKey` is not `Sendable`.
    private let key: [UInt8]
    private let minting: RateLimiter

    init(idsPerAddressPerHour: Int) {
        var generator = SystemRandomNumberGenerator()
        key = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        minting = RateLimiter(burst: idsPerAddressPerHour, per: 3600)
    }

    /// The client id a cookie value carries when this server signed it; nil for anything else.
    func id(fromCookie value: String) -> String? {
        let parts = value.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 32, parts[1].count == 64 else { return nil }
        return AccountService.same(signature(of: parts[0]), String(parts[1])) ? String(parts[0]) : nil
    }

    /// A new id and its cookie value, or nil when the address has had its share of ids this hour.
    func mint(for address: String) -> (id: String, cookie: String)? {
        guard (try? minting.take(address, what: "client ids")) != nil else { return nil }
        let id = RandomToken.hex(bytes: 16)
        return (id, id + "." + signature(of: Substring(id)))
    }

    private func signature(of id: Substring) -> String {
        Hashing.hex(HMAC<SHA256>.authenticationCode(for: Array(id.utf8), using: SymmetricKey(data: key)))
    }
}

/// Reads the anonymous client id into the request's context for every `/api/` request, and hands
/// out a new one (`Set-Cookie`) when the request has none or one this server did not sign. The web
/// app's page gets one too, so that the first requests it makes at once already share one id.
struct AnonymousClientMiddleware: RouterMiddleware {
    typealias Context = ServerContext
    let clients: AnonymousClients

    func handle(_ request: Request, context: ServerContext, next: (Request, ServerContext) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        guard path.hasPrefix("/api/") || path == "/" || path == "/index.html" else { return try await next(request, context) }
        var context = context
        if let value = request.cookies[AnonymousClients.cookieName]?.value, let id = clients.id(fromCookie: value) {
            context.anonymousClient = id
            return try await next(request, context)
        }
        // Signed-in people are told apart by their account.
        guard request.cookies[AccountRoutes.cookieName] == nil, request.headers[.authorization] == nil,
              let minted = clients.mint(for: context.clientAddress) else {
            return try await next(request, context)
        }
        context.anonymousClient = minted.id
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        }
        response.setCookie(Cookie(name: AnonymousClients.cookieName, value: minted.cookie, maxAge: AnonymousClients.lifetime, path: "/",
                                  secure: AccountRoutes.isHTTPS(request), httpOnly: true, sameSite: .lax))
        return response
    }
}
