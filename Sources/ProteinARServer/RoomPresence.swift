import Foundation
import NIOConcurrencyHelpers

/// Who is in each room on this server, and where they look. A joiner gets the full list once;
/// after that everyone gets the changes (joined, left, moved), gathered every
/// `RoomPresence.gather` per room, so a crowd joining costs one small message per interval to each
/// member, not a full list to everyone at every join. Anonymous watchers (no account, no guest key)
/// are counted but get no presence and are not listed: a big audience costs nothing to the others.
actor RoomPresence {
    struct View: Codable, Sendable {
        var position: [Double]
        var target: [Double]
        var isValid: Bool {
            position.count == 3 && target.count == 3 && (position + target).allSatisfy { $0.isFinite && abs($0) <= 10_000 }
        }
    }

    struct Peer: Codable, Sendable {
        var connection: String
        var id: String
        var name: String
        var role: String
        var view: View?
    }

    /// How long changes gather before they go out (so at most 10 presence messages a second).
    static let gather: Duration = .milliseconds(100)

    private struct Member {
        var peer: Peer
        var channel: AsyncStream<String>.Continuation
        /// Its stream dropped a message: the next one it gets is the full list.
        var needsFullList = false
    }

    private struct Room {
        var members: [String: Member] = [:]
        var watchers = 0
        var joined: [String] = []
        var left: [String] = []
        var moved: Set<String> = []
        var flushScheduled = false
        var isEmpty: Bool { members.isEmpty && watchers == 0 }
    }

    private var rooms: [String: Room] = [:]

    /// Joins and returns the stream of presence messages for this connection (the full list at once).
    func join(_ room: String, _ peer: Peer) -> AsyncStream<String> {
        let (stream, channel) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingOldest(32))
        rooms[room, default: Room()].members[peer.connection] = Member(peer: peer, channel: channel)
        rooms[room]?.joined.append(peer.connection)
        channel.yield(fullList(room))
        schedule(room)
        return stream
    }

    /// Counts an anonymous watcher in.
    func watch(_ room: String) {
        rooms[room, default: Room()].watchers += 1
        schedule(room)
    }

    func unwatch(_ room: String) {
        rooms[room]?.watchers -= 1
        if rooms[room]?.isEmpty == true { rooms[room] = nil } else { schedule(room) }
    }

    func update(_ room: String, connection: String, view: View) {
        guard rooms[room]?.members[connection] != nil else { return }
        rooms[room]?.members[connection]?.peer.view = view
        rooms[room]?.moved.insert(connection)
        schedule(room)
    }

    func leave(_ room: String, connection: String) {
        guard let member = rooms[room]?.members.removeValue(forKey: connection) else { return }
        member.channel.finish()
        rooms[room]?.left.append(connection)
        if rooms[room]?.isEmpty == true { rooms[room] = nil } else { schedule(room) }
    }

    private func schedule(_ room: String) {
        guard rooms[room]?.flushScheduled == false else { return }
        rooms[room]?.flushScheduled = true
        Task {
            try? await Task.sleep(for: Self.gather)
            self.flush(room)
        }
    }

    private func flush(_ room: String) {
        guard var state = rooms[room] else { return }
        state.flushScheduled = false
        struct Moved: Encodable { var connection: String; var view: View? }
        struct Changes: Encodable {
            var type = "presence-changes"
            var joined: [Peer]
            var left: [String]
            var moved: [Moved]
            var watchers: Int
        }
        let joined = state.joined.compactMap { state.members[$0]?.peer }
        let moved = state.moved.subtracting(state.joined).compactMap { c in state.members[c].map { Moved(connection: c, view: $0.peer.view) } }
        let changes = Changes(joined: joined, left: state.left, moved: moved, watchers: state.watchers)
        state.joined = []; state.left = []; state.moved = []
        rooms[room] = state
        guard let data = try? RoomJSON.encoder.encode(changes) else { return }
        let text = String(decoding: data, as: UTF8.self)
        var full: String?
        for (connection, member) in state.members {
            let message: String
            if member.needsFullList {
                if full == nil { full = fullList(room) }
                message = full ?? text
                rooms[room]?.members[connection]?.needsFullList = false
            } else {
                message = text
            }
            if case .dropped = member.channel.yield(message) { rooms[room]?.members[connection]?.needsFullList = true }
        }
    }

    private func fullList(_ room: String) -> String {
        struct Message: Encodable { var type = "presence"; var peers: [Peer]; var watchers: Int }
        let state = rooms[room] ?? Room()
        let peers = state.members.values.map(\.peer).sorted { $0.connection < $1.connection }
        return (try? RoomJSON.encoder.encode(Message(peers: peers, watchers: state.watchers))).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}

/// Live sockets per room and per client address, so that one client cannot hold thousands of
/// sockets, nor one room take every socket of the server.
final class SocketCounter: Sendable {
    let perRoom: Int
    let perAddress: Int
    private let counts = NIOLockedValueBox((rooms: [String: Int](), addresses: [String: Int]()))

    init(limits: ServerLimits) { perRoom = limits.socketsPerRoom; perAddress = limits.socketsPerAddress }

    /// Counts the socket in, or gives the refusal's code and message.
    func admit(room: String, address: String) -> (code: String, message: String)? {
        counts.withLockedValue { c in
            if c.rooms[room, default: 0] >= perRoom { return ("room-full", "this room has \(perRoom) people connected, the most it takes") }
            if c.addresses[address, default: 0] >= perAddress {
                return ("too-many-sockets", "your address has \(perAddress) live rooms open, the most it may")
            }
            c.rooms[room, default: 0] += 1
            c.addresses[address, default: 0] += 1
            return nil
        }
    }

    func release(room: String, address: String) {
        counts.withLockedValue { c in
            c.rooms[room] = c.rooms[room].flatMap { $0 > 1 ? $0 - 1 : nil }
            c.addresses[address] = c.addresses[address].flatMap { $0 > 1 ? $0 - 1 : nil }
        }
    }
}
