import Foundation
import Hummingbird
import NIOCore

/// The address a phone can open this server at, for the desktop page's QR code: a page opened as
/// `http://127.0.0.1:8080` on the server's own computer would give phones an address that is their
/// own. `--public-url` (behind a proxy, a name) wins; otherwise the computer's network addresses
/// (IPv4, not loopback) with the port the page came in on. None: the page says why it has no code.
struct PhoneAddress: Sendable {
    let publicURL: String?
    let secure: Bool
    /// The address the server listens on: one on loopback only (127.0.0.1) cannot be reached from a phone.
    let listensOn: String

    func register(on api: RouterGroup<ServerContext>) {
        api.get("phone-address") { request, _ in
            let fields: [(String, JSONText.Value)]
            if let answer = address(hostHeader: request.head.authority) {
                fields = [("address", .string(answer)), ("source", .string(publicURL != nil ? "public-url" : "network"))]
            } else {
                let reason = loopbackOnly
                    ? "The server listens on \(listensOn) only, which no phone can reach: start it with --host 0.0.0.0 (or --public-url)."
                    : "This computer has no network address a phone could reach: start the server with --public-url, or open the page by the computer's address on the network."
                fields = [("address", .null), ("source", .string("none")), ("reason", .string(reason))]
            }
            var response = Responses.json(JSONText.render(.object(fields)))
            response.headers[.cacheControl] = "no-store"
            return response
        }
    }

    /// `--public-url`, else the first network address of this computer with the request's port.
    func address(hostHeader: String?) -> String? {
        if let publicURL { return publicURL }
        guard !loopbackOnly else { return nil }
        let port = hostHeader.flatMap { h -> String? in
            guard let colon = h.lastIndex(of: ":"), !h.hasSuffix("]") else { return nil }
            return String(h[h.index(after: colon)...])
        }
        guard let ip = Self.networkAddresses().first else { return nil }
        return "\(secure ? "https" : "http")://\(ip)\(port.map { ":\($0)" } ?? "")"
    }

    var loopbackOnly: Bool { listensOn.hasPrefix("127.") || listensOn == "localhost" || listensOn == "::1" }

    /// IPv4 addresses of this computer's interfaces other than loopback (private ones first).
    static func networkAddresses() -> [String] {
        let devices = (try? System.enumerateDevices()) ?? []
        let addresses = devices.compactMap { device -> String? in
            guard let address = device.address, case .v4 = address, let ip = address.ipAddress, !ip.hasPrefix("127.") else { return nil }
            return ip
        }
        let isPrivate = { (ip: String) in ip.hasPrefix("10.") || ip.hasPrefix("192.168.") || (16...31).contains(Int(ip.split(separator: ".").dropFirst().first ?? "") ?? 0) && ip.hasPrefix("172.") }
        return addresses.filter(isPrivate) + addresses.filter { !isPrivate($0) }
    }
}
