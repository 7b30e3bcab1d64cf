import Foundation
import Storage

/// What one server tells the others about its people in one room (`RoomPresence`): peers that
/// joined, moved or are still there, connections that left, and how many anonymous watchers it
/// has. Small enough for one PostgreSQL notice; a room with many people takes several.
public struct PresenceNotice: Codable, Sendable, Equatable {
    public var server: String
    public var room: String
    public var peers: [RoomPresence.Peer]
    public var left: [String]
    public var watchers: Int

    /// Limits on what another server may send: beyond them the notice is ignored as malformed.
    public static let longestText = 300
    public static let mostEntries = 500

    public init(server: String, room: String, peers: [RoomPresence.Peer], left: [String], watchers: Int) {
        self.server = server; self.room = room; self.peers = peers; self.left = left; self.watchers = watchers
    }

    /// Reads another server's notice; nil when it is not one, or holds what no server sends
    /// (overlong text, invalid views, a negative count).
    public init?(payload: String) {
        guard payload.utf8.count <= RoomNotice.maximumPayloadBytes,
              let notice = try? JSONDecoder().decode(PresenceNotice.self, from: Data(payload.utf8)), notice.isWellFormed else { return nil }
        self = notice
    }

    public var isWellFormed: Bool {
        func fits(_ text: String, _ most: Int = Self.longestText) -> Bool { !text.isEmpty && text.utf8.count <= most }
        return fits(server, 64) && fits(room, 128) && (0...1_000_000).contains(watchers)
            && peers.count <= Self.mostEntries && left.count <= Self.mostEntries
            && left.allSatisfy { fits($0, 64) }
            && peers.allSatisfy { p in
                fits(p.connection, 64) && fits(p.id) && p.name.utf8.count <= Self.longestText && fits(p.role, 32) && (p.view?.isValid ?? true)
            }
    }

    /// The notices that carry these changes, each within `RoomNotice.maximumPayloadBytes`: peers
    /// and leaves are split over as many as needed; each says the watchers. At least one (an
    /// empty one still says the server is there and how many watch).
    public static func payloads(server: String, room: String, peers: [RoomPresence.Peer], left: [String], watchers: Int) -> [String] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        func text(_ notice: PresenceNotice) -> String? { (try? encoder.encode(notice)).map { String(decoding: $0, as: UTF8.self) } }
        // The envelope's size, then each entry's, with a margin for commas.
        let empty = PresenceNotice(server: server, room: room, peers: [], left: [], watchers: watchers)
        let envelope = (text(empty)?.utf8.count ?? 0) + 16
        let budget = RoomNotice.maximumPayloadBytes - envelope
        var out: [String] = []
        var current = empty, used = 0
        func add(_ size: Int, _ append: (inout PresenceNotice) -> Void) {
            let entries = current.peers.count + current.left.count
            if entries > 0, used + size > budget || entries >= mostEntries {
                if let t = text(current) { out.append(t) }
                current = empty; used = 0
            }
            append(&current); used += size
        }
        for peer in peers {
            let size = (try? encoder.encode(peer).count) ?? budget
            guard size < budget else { continue }  // cannot happen with the limits on names; never sent
            add(size + 1) { $0.peers.append(peer) }
        }
        for connection in left { add(connection.utf8.count + 3) { $0.left.append(connection) } }
        if out.isEmpty || !(current.peers.isEmpty && current.left.isEmpty), let t = text(current) { out.append(t) }
        return out
    }
}
