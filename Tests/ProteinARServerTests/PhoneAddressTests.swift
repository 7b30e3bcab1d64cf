import Foundation
import Testing
import TestSupport
@testable import ProteinARServer

/// The address the desktop page's QR code carries (issue 30, point 15): never the computer's own.
@Suite("Phone address")
struct PhoneAddressTests {
    @Test("a server on loopback only has no address for phones, and says why; --public-url is given as it is")
    func overHTTP() async throws {
        let local = try await TestServer.start(.sqlite) { $0.installStarterLibrary = false }
        let none = try await local.get("/api/phone-address", anonymous: true)
        await local.stop()
        #expect(none.status == 200 && none.json["address"] is NSNull && none.json["source"] as? String == "none")
        #expect((none.json["reason"] as? String)?.contains("--host 0.0.0.0") == true, "\(none.text)")
        let named = try await TestServer.start(.sqlite) { $0.installStarterLibrary = false; $0.publicURL = "https://proteinar.example.org" }
        let given = try await named.get("/api/phone-address", anonymous: true)
        await named.stop()
        #expect(given.json["address"] as? String == "https://proteinar.example.org" && given.json["source"] as? String == "public-url")
    }

    @Test("on every interface: this computer's network address (not loopback) with the port the page came in on")
    func networkAddress() {
        let phone = PhoneAddress(publicURL: nil, secure: false, listensOn: "0.0.0.0")
        let addresses = PhoneAddress.networkAddresses()
        #expect(!addresses.contains { $0.hasPrefix("127.") })
        if let first = addresses.first {
            #expect(phone.address(hostHeader: "127.0.0.1:8080") == "http://\(first):8080")
        } else {
            #expect(phone.address(hostHeader: "127.0.0.1:8080") == nil)
        }
        #expect(PhoneAddress(publicURL: nil, secure: true, listensOn: "127.0.0.1").address(hostHeader: "127.0.0.1:8443") == nil)
    }
}
