/// Who may do what in a room. The server checks every operation against this; nothing else in the
/// room changes when one is refused.
public struct RoomSettings: Sendable, Equatable, Codable {
    public var id: String
    public var name: String
    public var ownerID: String
    public var isPublic: Bool
    /// Whether guests (people without an account, who joined a public room by its link) may draw.
    public var guestsMayDraw: Bool
    public var members: Set<String>
    public var location: GeoLocation?

    public init(id: String, name: String, ownerID: String, isPublic: Bool = false, guestsMayDraw: Bool = false,
                members: Set<String> = [], location: GeoLocation? = nil) {
        self.id = id; self.name = name; self.ownerID = ownerID; self.isPublic = isPublic
        self.guestsMayDraw = guestsMayDraw; self.members = members; self.location = location
    }

    public func role(of actor: Participant) -> Role? {
        if !actor.isGuest && actor.id == ownerID { return .owner }
        if !actor.isGuest && members.contains(actor.id) { return .member }
        return isPublic ? .guest : nil
    }

    public func mayRead(_ actor: Participant) -> Bool { role(of: actor) != nil }

    public func mayDraw(_ actor: Participant) -> Bool {
        switch role(of: actor) {
        case .owner, .member: true
        case .guest: guestsMayDraw
        case nil: false
        }
    }

    public enum Role: String, Sendable, Codable { case owner, member, guest }
}

/// Whoever takes part in a room (sends an operation, reads it): an account, or a guest known only by
/// the session.
public struct Participant: Sendable, Equatable, Hashable {
    public var id: String
    public var isGuest: Bool
    public init(id: String, isGuest: Bool = false) { self.id = id; self.isGuest = isGuest }
}

/// An operation refused, and why, in words for the sender.
public struct RoomError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable { case forbidden, invalid, notFound = "not-found", gone }
    public var kind: Kind
    public var message: String
    public init(_ kind: Kind, _ message: String) { self.kind = kind; self.message = message }
    public var description: String { message }
}
