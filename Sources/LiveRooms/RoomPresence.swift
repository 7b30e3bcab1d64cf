import Foundation
import NIOConcurrencyHelpers
import Rooms
import Storage

/// Who is in each room, and where they look. A joiner gets the full list once; after that everyone
/// gets the changes (joined, left, moved), at most one message per `RoomPresence.gather` per room, so a
/// crowd joining costs one small message per interval to each member, not a full list to everyone
/// at every join. Anonymous watchers (no account, no guest key) are counted but get no presence and
/// are not listed: a big audience costs nothing to the others.
///
/// With several servers on one store (`sharedByServers`), each server tells the others what changed
/// among its own people (`notices`, sent by `RoomRelay`), gathered as for its clients, and
/// re-announces them every `heartbeat`; the others list those peers beside their own
/// (`receive`). A peer not announced for `remoteLifetime` is gone (its server died or lost the
/// database): `tick` drops it, and the clients are told it left.
public actor RoomPresence {
    public struct View: Codable, Sendable, Equatable {
        public var position: [Double]
        public var target: [Double]
        public var isValid: Bool {
            position.count == 3 && target.count == 3 && (position + target).allSatisfy { $0.isFinite && abs($0) <= 10_000 }
        }
    }

    public struct Peer: Codable, Sendable, Equatable {
        public var connection: String
        public var id: String
        public var name: String
        public var role: String
        public var view: View?
        public init(connection: String, id: String, name: String, role: String, view: View? = nil) {
            self.connection = connection; self.id = id; self.name = name; self.role = role; self.view = view
        }
    }

    /// The least time between two presence messages of a room (so at most 10 a second, to clients
    /// and to other servers): a change after a quiet moment goes out at once, later ones gather
    /// until this much has passed since the last message.
    public static let gather: Duration = .milliseconds(100)
    /// How often a server re-announces its people to the others.
    public static let heartbeat: Duration = .seconds(1)
    /// A peer of another server not announced for this long has left (three heartbeats missed).
    public static let remoteLifetime: Duration = .milliseconds(3_500)
    /// The store's notice channel for presence between servers.
    public static let channel = "proteinar_room_presence"

    private struct Member {
        var peer: Peer
        var channel: AsyncStream<String>.Continuation
        /// Its stream dropped a message: the next one it gets is the full list.
        var needsFullList = false
    }

    /// Someone connected to another server, and when that server last said so.
    private struct RemotePeer {
        var peer: Peer
        var server: String
        var seen: ContinuousClock.Instant
    }

    private struct RemoteWatchers {
        var count: Int
        var seen: ContinuousClock.Instant
    }

    private struct Room {
        var members: [String: Member] = [:]
        var watchers = 0
        /// Other servers' people, by connection, and their anonymous watchers, by server.
        var remote: [String: RemotePeer] = [:]
        var remoteWatchers: [String: RemoteWatchers] = [:]
        var joined: [String] = []
        var left: [String] = []
        var moved: Set<String> = []
        /// This server's members who left since the last flush (the others are told), and whether
        /// anything of this server's changed (joins, views, watchers).
        var leftHere: [String] = []
        var changedHere = false
        var flushScheduled = false
        var lastFlush: ContinuousClock.Instant?
        var isEmpty: Bool { members.isEmpty && watchers == 0 && remote.isEmpty && remoteWatchers.isEmpty }
        var allWatchers: Int { remoteWatchers.values.reduce(watchers) { $0 + $1.count } }
        func peer(_ connection: String) -> Peer? { members[connection]?.peer ?? remote[connection]?.peer }
    }

    private var rooms: [String: Room] = [:]
    /// This server among those on the store: its own notices come back to it and are skipped.
    public nonisolated let server = RandomToken.hex(bytes: 6)
    /// Notices for the other servers, in order (`RoomRelay` sends them); nil with one server.
    public nonisolated let notices: AsyncStream<String>?
    private let outgoing: AsyncStream<String>.Continuation?

    public init(sharedByServers: Bool = false) {
        if sharedByServers {
            // A slow database drops the oldest notices first; the next heartbeat says it all again.
            let (stream, input) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(1_000))
            notices = stream
            outgoing = input
        } else {
            notices = nil
            outgoing = nil
        }
    }

    /// Joins and returns the stream of presence messages for this connection (the full list at once).
    public func join(_ room: String, _ peer: Peer) -> AsyncStream<String> {
        let (stream, channel) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingOldest(32))
        rooms[room, default: Room()].members[peer.connection] = Member(peer: peer, channel: channel)
        rooms[room]?.joined.append(peer.connection)
        rooms[room]?.changedHere = true
        channel.yield(fullList(room))
        schedule(room)
        return stream
    }

    /// Counts an anonymous watcher in.
    public func watch(_ room: String) {
        rooms[room, default: Room()].watchers += 1
        rooms[room]?.changedHere = true
        schedule(room)
    }

    public func unwatch(_ room: String) {
        rooms[room]?.watchers -= 1
        rooms[room]?.changedHere = true
        settle(room)
    }

    public func update(_ room: String, connection: String, view: View) {
        guard rooms[room]?.members[connection] != nil else { return }
        rooms[room]?.members[connection]?.peer.view = view
        rooms[room]?.moved.insert(connection)
        rooms[room]?.changedHere = true
        schedule(room)
    }

    public func leave(_ room: String, connection: String) {
        guard let member = rooms[room]?.members.removeValue(forKey: connection) else { return }
        member.channel.finish()
        rooms[room]?.left.append(connection)
        rooms[room]?.leftHere.append(connection)
        rooms[room]?.changedHere = true
        settle(room)
    }

    /// A room nobody is in any more is forgotten, after the other servers are told; else the
    /// change goes out with the next flush.
    private func settle(_ room: String) {
        guard let state = rooms[room] else { return }
        if state.isEmpty {
            announceChanges(room, state)
            rooms[room] = nil
        } else {
            schedule(room)
        }
    }

    private func schedule(_ room: String) {
        guard let state = rooms[room], !state.flushScheduled else { return }
        let wait = state.lastFlush.map { Self.gather - (ContinuousClock.now - $0) } ?? .zero
        guard wait > .zero else { return flush(room) }
        rooms[room]?.flushScheduled = true
        Task {
            try? await Task.sleep(for: wait)
            self.flush(room)
        }
    }

    private func flush(_ room: String) {
        guard var state = rooms[room] else { return }
        state.flushScheduled = false
        announceChanges(room, state)
        struct Moved: Encodable { var connection: String; var view: View? }
        struct Changes: Encodable {
            var type = "presence-changes"
            var joined: [Peer]
            var left: [String]
            var moved: [Moved]
            var watchers: Int
        }
        let joined = state.joined.compactMap { state.peer($0) }
        let moved = state.moved.subtracting(state.joined).compactMap { c in state.peer(c).map { Moved(connection: c, view: $0.view) } }
        let changes = Changes(joined: joined, left: state.left, moved: moved, watchers: state.allWatchers)
        state.joined = []; state.left = []; state.moved = []; state.leftHere = []; state.changedHere = false
        state.lastFlush = .now
        rooms[room] = state
        guard let data = try? RoomWire.encoder.encode(changes) else { return }
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
        let peers = (state.members.values.map(\.peer) + state.remote.values.map(\.peer)).sorted { $0.connection < $1.connection }
        return (try? RoomWire.encoder.encode(Message(peers: peers, watchers: state.allWatchers))).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    // MARK: Other servers

    /// Tells the other servers what changed among this server's people in the room since the last
    /// flush: who joined or looked elsewhere (as whole peers), who left, how many watch.
    private func announceChanges(_ room: String, _ state: Room) {
        guard outgoing != nil, state.changedHere else { return }
        let changed = Set(state.joined).union(state.moved).compactMap { state.members[$0]?.peer }
        announce(room, peers: changed.sorted { $0.connection < $1.connection }, left: state.leftHere, watchers: state.watchers)
    }

    private func announce(_ room: String, peers: [Peer], left: [String], watchers: Int) {
        guard let outgoing else { return }
        for payload in PresenceNotice.payloads(server: server, room: room, peers: peers, left: left, watchers: watchers) {
            outgoing.yield(payload)
        }
    }

    /// Another server's notice: its peers in one room (new, moved, or still there) and who left.
    /// Malformed notices and this server's own are ignored.
    public func receive(_ payload: String) {
        guard let notice = PresenceNotice(payload: payload), notice.server != server else { return }
        let now = ContinuousClock.now
        var state = rooms[notice.room] ?? Room()
        var changed = false
        for peer in notice.peers where state.members[peer.connection] == nil {
            let known = state.remote[peer.connection]
            state.remote[peer.connection] = RemotePeer(peer: peer, server: notice.server, seen: now)
            if known == nil { state.joined.append(peer.connection); changed = true }
            else if known?.peer != peer { state.moved.insert(peer.connection); changed = true }
        }
        for connection in notice.left where state.remote[connection]?.server == notice.server {
            state.remote[connection] = nil
            state.left.append(connection)
            changed = true
        }
        let before = state.allWatchers
        state.remoteWatchers[notice.server] = notice.watchers > 0 ? RemoteWatchers(count: notice.watchers, seen: now) : nil
        changed = changed || state.allWatchers != before
        keep(notice.room, state, changed: changed)
    }

    /// Every `heartbeat`: drops other servers' peers (and watchers) that were not announced for
    /// `remoteLifetime`, and announces this server's people in each room again.
    public func tick() {
        let now = ContinuousClock.now
        for (room, var state) in rooms {
            var changed = false
            for (connection, remote) in state.remote where now - remote.seen > Self.remoteLifetime {
                state.remote[connection] = nil
                state.left.append(connection)
                changed = true
            }
            for (server, watchers) in state.remoteWatchers where now - watchers.seen > Self.remoteLifetime {
                state.remoteWatchers[server] = nil
                changed = true
            }
            keep(room, state, changed: changed)
            if !state.members.isEmpty || state.watchers > 0 {
                let peers = state.members.values.map(\.peer).sorted { $0.connection < $1.connection }
                announce(room, peers: peers, left: [], watchers: state.watchers)
            }
        }
    }

    /// Keeps a room's state after other servers' changes: the clients here are told with the next
    /// flush; with no client here there is nobody to tell, and an empty room is forgotten.
    private func keep(_ room: String, _ state: Room, changed: Bool) {
        var state = state
        if state.members.isEmpty { state.joined = []; state.left = []; state.moved = [] }
        if state.isEmpty {
            announceChanges(room, state)  // a leave of this server's still waiting for its flush
            rooms[room] = nil
            return
        }
        rooms[room] = state
        if changed, !state.members.isEmpty { schedule(room) }
    }
}
