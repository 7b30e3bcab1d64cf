import Foundation

/// Invitations to rooms, by room and e-mail: an owner invites an e-mail, whoever signs in with it
/// (now or after registering later) accepts or declines. Kept by e-mail rather than by account, so
/// inviting never needs to know whether the e-mail has an account, and says nothing about it.
public protocol InvitationStore: Sendable {
    /// Adds the invitation, or renews one for the same room and e-mail (new inviter and time).
    /// A new one is refused (false, nothing changed) when the room has `limit` pending already.
    func invite(_ invitation: StoredInvitation, limit: Int) async throws -> Bool
    /// The room's pending invitations, by e-mail.
    func invitations(roomID: String) async throws -> [StoredInvitation]
    /// The pending invitations to this e-mail, newest first. E-mails are compared as stored:
    /// callers lower-case them first.
    func invitations(email: String) async throws -> [StoredInvitation]
    /// Removes the invitation (accepted, declined or withdrawn); false when there was none.
    func deleteInvitation(roomID: String, email: String) async throws -> Bool
}

public struct StoredInvitation: Sendable, Equatable {
    public var roomID: String
    /// Lower-case, as the server checks it.
    public var email: String
    /// The account that invited (the room's owner).
    public var invitedBy: String
    public var invitedAt: Date
    public init(roomID: String, email: String, invitedBy: String, invitedAt: Date) {
        self.roomID = roomID; self.email = email; self.invitedBy = invitedBy; self.invitedAt = invitedAt
    }
}
