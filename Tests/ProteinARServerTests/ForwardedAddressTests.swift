import HTTPTypes
@testable import ProteinARServer
import Testing

/// `--trusted-proxy`: the client's address from a trusted proxy's `X-Forwarded-For` or
/// `Forwarded`, the rightmost hop that is not a trusted proxy; from anyone else, the headers are
/// ignored.
@Suite("Forwarded addresses from trusted proxies")
struct ForwardedAddressTests {
    static func headers(_ pairs: [(String, String)]) -> HTTPFields {
        var h = HTTPFields()
        for (name, value) in pairs { h.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
        return h
    }

    @Test("the rightmost untrusted hop, only from a trusted peer; Forwarded when there is no X-Forwarded-For; junk ignored")
    func addresses() {
        let proxies = TrustedProxies(["10.0.0.2", "10.0.0.3", "::1"])
        let chain = Self.headers([("X-Forwarded-For", "198.51.100.9, 203.0.113.7, 10.0.0.3")])
        #expect(proxies.clientAddress(peer: "10.0.0.2", headers: chain) == "203.0.113.7")
        // A client's own made-up header, straight to the server: not trusted.
        #expect(proxies.clientAddress(peer: "192.0.2.1", headers: chain) == "192.0.2.1")
        // Two header lines are one list.
        let split = Self.headers([("X-Forwarded-For", "198.51.100.9"), ("X-Forwarded-For", "203.0.113.8")])
        #expect(proxies.clientAddress(peer: "10.0.0.2", headers: split) == "203.0.113.8")
        let forwarded = Self.headers([("Forwarded", #"for="[2001:db8::7]:4711";proto=https, for=10.0.0.3"#)])
        #expect(proxies.clientAddress(peer: "::1", headers: forwarded) == "2001:db8::7")
        let junk = Self.headers([("X-Forwarded-For", "not-an-address, 10.0.0.3")])
        #expect(proxies.clientAddress(peer: "10.0.0.2", headers: junk) == "10.0.0.2")
        #expect(proxies.clientAddress(peer: "10.0.0.2", headers: HTTPFields()) == "10.0.0.2")
        #expect(TrustedProxies([]).clientAddress(peer: "10.0.0.2", headers: chain) == "10.0.0.2")
        #expect(TrustedProxies.address("203.0.113.7:80") == "203.0.113.7")
    }
}
