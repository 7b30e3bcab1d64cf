import Rooms
import Storage

/// Who sent a request: an account (by session cookie or bearer token), a guest (by guest key), or
/// nobody. Found once per request (the server's authenticator middleware puts it in the request's
/// context); a bearer token or guest key that is not valid is kept as `refusal`, thrown where the
/// request's route first asks who it comes from (a route that never asks serves it as it would
/// anyone).
public struct Identity: Sendable {
    public var account: StoredAccount?
    public var session: StoredSession?
    /// Signed in by the cookie: changes then need the CSRF token (a bearer token cannot be sent by
    /// another site's page, a cookie can).
    public var viaCookie = false
    /// `g` and 16 hex digits of the guest key's hash: others see this, never the key.
    public var guestID: String?
    /// Why the credentials sent cannot be used (a signed-out token, a malformed guest key).
    public var refusal: AccountError?

    public init() {}

    /// The identity, or the refusal of the credentials it was sent with.
    public func checked() throws(AccountError) -> Identity {
        if let refusal { throw refusal }
        return self
    }

    public var participant: Participant? {
        if let account { return Participant(id: account.id) }
        return guestID.map { Participant(id: $0, isGuest: true) }
    }

    public var displayName: String { account?.name ?? "Guest \(guestID?.dropFirst().prefix(4) ?? "")" }
}
