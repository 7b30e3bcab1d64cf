import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Reverse proxies the operator trusts (`--trusted-proxy`): behind one (Caddy, nginx terminating
/// TLS), every connection comes from the proxy's address, and per-address limits would count all
/// clients as one. From a trusted proxy the client's address is read from `X-Forwarded-For` (or
/// `Forwarded: for=`): the rightmost entry that is not itself a trusted proxy, since entries to
/// its left were written by the client and may be made up. From anyone else those headers are
/// ignored.
struct TrustedProxies: Sendable {
    let addresses: Set<String>

    init(_ addresses: [String]) { self.addresses = Set(addresses.map(Self.normalised)) }

    var isEmpty: Bool { addresses.isEmpty }

    func trusts(_ address: String) -> Bool { addresses.contains(Self.normalised(address)) }

    /// The client's address for a request from `peer` with `headers`.
    func clientAddress(peer: String, headers: HTTPFields) -> String {
        guard !addresses.isEmpty, trusts(peer) else { return peer }
        let chain = Self.forwardedFor(headers)
        for hop in chain.reversed() where !trusts(hop) { return hop }
        return peer
    }

    /// The addresses a request passed through, oldest first: `X-Forwarded-For`, else `Forwarded`'s `for=`.
    static func forwardedFor(_ headers: HTTPFields) -> [String] {
        let xff = HTTPField.Name("X-Forwarded-For")!
        let values = headers[values: xff]
        if !values.isEmpty {
            return values.flatMap { $0.split(separator: ",") }.compactMap { address(String($0)) }
        }
        let forwarded = HTTPField.Name("Forwarded")!
        return headers[values: forwarded].flatMap { $0.split(separator: ",") }.compactMap { element in
            element.split(separator: ";").lazy.map { $0.trimmingCharacters(in: .whitespaces) }
                .first { $0.lowercased().hasPrefix("for=") }
                .flatMap { address(String($0.dropFirst(4)).trimmingCharacters(in: CharacterSet(charactersIn: "\""))) }
        }
    }

    /// An IP address as written in a forwarding header ("203.0.113.7", "[2001:db8::1]:4711"), or nil.
    static func address(_ text: String) -> String? {
        var t = text.trimmingCharacters(in: .whitespaces)
        if t.hasPrefix("[") , let end = t.firstIndex(of: "]") { t = String(t[t.index(after: t.startIndex)..<end]) }
        else if t.filter({ $0 == ":" }).count == 1, let colon = t.firstIndex(of: ":") { t = String(t[..<colon]) }
        guard !t.isEmpty, t.count <= 45, (try? SocketAddress(ipAddress: t, port: 0)) != nil else { return nil }
        return normalised(t)
    }

    static func normalised(_ address: String) -> String {
        (try? SocketAddress(ipAddress: address, port: 0))?.ipAddress ?? address
    }
}

/// Puts the client's address, as forwarded by a trusted proxy, into the request's context, before
/// any route or limit reads it.
struct ForwardedAddressMiddleware: RouterMiddleware {
    typealias Context = ServerContext
    let proxies: TrustedProxies

    func handle(_ request: Request, context: ServerContext, next: (Request, ServerContext) async throws -> Response) async throws -> Response {
        guard !proxies.isEmpty else { return try await next(request, context) }
        var context = context
        let address = proxies.clientAddress(peer: context.peerAddress, headers: request.headers)
        if address != context.peerAddress { context.forwardedFor = address }
        return try await next(request, context)
    }
}
