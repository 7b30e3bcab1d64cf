import Foundation
import Rooms
import Storage

/// A room as the API shows it to one person: its settings and that person's part in it.
public struct RoomJSON: Encodable, Sendable {
    public var id: String
    public var name: String
    public var ownerID: String
    public var ownerName: String?
    public var isPublic: Bool
    public var guestsMayDraw: Bool
    public var members: [String]
    public var location: GeoLocation?
    public var role: String?
    public var mayDraw: Bool
    public var createdAt: Date?
    /// Known when the room's content was read (a room's own page), not in lists.
    public var molecule: MoleculePlacement?
    public var sequence: UInt64?

    public init(_ s: RoomSettings, for actor: Participant?, names: [String: String], createdAt: Date? = nil, state: RoomState? = nil) {
        id = s.id; name = s.name; ownerID = s.ownerID; ownerName = names[s.ownerID]; isPublic = s.isPublic
        guestsMayDraw = s.guestsMayDraw; members = s.members.sorted(); location = s.location
        role = actor.flatMap { s.role(of: $0)?.rawValue }
        mayDraw = actor.map { s.mayDraw($0) } ?? false
        self.createdAt = createdAt
        molecule = state?.molecule
        sequence = state?.sequence
    }

    /// Unknown owner names, roles and locations are null; molecule and sequence are there only when
    /// the room's content was read.
    public func encode(to encoder: any Encoder) throws {
        enum K: String, CodingKey { case id, name, ownerID, ownerName, isPublic, guestsMayDraw, members, location, role, mayDraw, createdAt, molecule, sequence }
        var c = encoder.container(keyedBy: K.self)
        try c.encode(id, forKey: .id); try c.encode(name, forKey: .name); try c.encode(ownerID, forKey: .ownerID)
        try c.encode(ownerName, forKey: .ownerName); try c.encode(isPublic, forKey: .isPublic)
        try c.encode(guestsMayDraw, forKey: .guestsMayDraw); try c.encode(members, forKey: .members)
        try c.encode(location, forKey: .location); try c.encode(role, forKey: .role); try c.encode(mayDraw, forKey: .mayDraw)
        try c.encodeIfPresent(createdAt, forKey: .createdAt)
        if sequence != nil { try c.encode(molecule, forKey: .molecule) }
        try c.encodeIfPresent(sequence, forKey: .sequence)
    }

}

/// Rooms as lists and profiles show them: their settings from the room log's store, their
/// owners' names from the account store.
public struct RoomSummaries: Sendable {
    public let rooms: any RoomLogStore
    public let accounts: any AccountStore

    public init(rooms: any RoomLogStore, accounts: any AccountStore) { self.rooms = rooms; self.accounts = accounts }

    /// The settings and creation dates of the stored rooms that `keep` accepts, newest first.
    public func settings(where keep: (RoomSettings) -> Bool) async throws -> [(RoomSettings, Date)] {
        let decoder = JSONDecoder()
        return Array(try await rooms.rooms().compactMap { stored in
            (try? decoder.decode(RoomSettings.self, from: Data(stored.settingsJSON.utf8))).map { ($0, stored.createdAt) }
        }.filter { keep($0.0) }.reversed())
    }

    /// One stored room's settings, read from the store without loading the room; nil when there is none.
    public func settings(id: String) async throws -> RoomSettings? {
        guard let stored = try await rooms.room(id: id) else { return nil }
        return try? JSONDecoder().decode(RoomSettings.self, from: Data(stored.settingsJSON.utf8))
    }

    /// A page of the stored rooms that `keep` accepts, newest first, as `actor` sees them, and how
    /// many there are in all; owners' names are looked up for the page only.
    public func list(for actor: Participant?, offset: Int = 0, limit: Int = .max,
              where keep: (RoomSettings) -> Bool) async throws -> (rooms: [RoomJSON], total: Int) {
        let all = try await settings(where: keep)
        let page = Array(all.dropFirst(offset).prefix(limit))
        let names = await ownerNames(page.map(\.0))
        return (page.map { RoomJSON($0.0, for: actor, names: names, createdAt: $0.1) }, all.count)
    }

    /// One room as `actor` sees it.
    public func summary(_ settings: RoomSettings, for actor: Participant?, state: RoomState? = nil) async -> RoomJSON {
        let names = await ownerNames([settings])
        let created = try? await rooms.room(id: settings.id)?.createdAt
        return RoomJSON(settings, for: actor, names: names, createdAt: created, state: state)
    }

    /// Names of the rooms' owners, one lookup per owner.
    public func ownerNames(_ settings: [RoomSettings]) async -> [String: String] {
        var names: [String: String] = [:]
        for owner in Set(settings.map(\.ownerID)) where names[owner] == nil {
            names[owner] = try? await accounts.account(id: owner)?.name
        }
        return names
    }
}

/// Decoding errors in words for the sender: which field, what was wrong.
public enum RoomJSONErrors {
    public static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, let context):
            return "missing field '\(path(context.codingPath + [key]))'"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            return "field '\(path(context.codingPath))': \(context.debugDescription)"
        case DecodingError.dataCorrupted(let context):
            let underlying = context.underlyingError.map { e in
                ((e as NSError).userInfo[NSDebugDescriptionErrorKey] as? String) ?? String(describing: e)
            }
            let at = context.codingPath.isEmpty ? "" : "field '\(path(context.codingPath))': "
            return at + (context.codingPath.isEmpty && underlying == nil ? "not valid JSON" : (underlying ?? context.debugDescription))
        default:
            return "not valid JSON"
        }
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".").replacingOccurrences(of: ".[", with: "[")
    }
}
