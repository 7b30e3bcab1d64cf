import Accounts
import LiveRooms
import Storage

/// An account as the API shows it (never its password hash).
struct AccountJSON: Codable, Sendable {
    var id: String
    var email: String
    var name: String
    /// `admin` (may delete any molecule) or `member`.
    var role: String
    init(_ a: StoredAccount) { id = a.id; email = a.email; name = a.name; role = a.isAdmin ? "admin" : "member" }
}

struct SessionJSON: Encodable, Sendable {
    var account: AccountJSON?
    var csrf: String?
    var token: String?

    /// Signed out reads as `{"account": null, "csrf": null}`, not `{}`.
    func encode(to encoder: any Encoder) throws {
        enum K: String, CodingKey { case account, csrf, token }
        var c = encoder.container(keyedBy: K.self)
        try c.encode(account, forKey: .account)
        try c.encode(csrf, forKey: .csrf)
        try c.encodeIfPresent(token, forKey: .token)
    }
}

struct ProfileJSON: Encodable, Sendable {
    var account: AccountJSON
    var rooms: [RoomJSON]
}
