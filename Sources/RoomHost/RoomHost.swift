import Foundation
import Library
import SketchRooms

/// Hosts drawing rooms on a library store: loads a room from its latest snapshot and the log's
/// tail, checks each operation with the room's rules, stores it, and only then reports it accepted,
/// so nothing anyone was told had happened can be lost by a crash. Subscribers (the live
/// connections) receive accepted operations in sequence order.
public actor RoomHost {
    public let store: any RoomLogStore
    /// Operations between snapshots: a room loads from at most this many log entries.
    public let snapshotInterval: Int

    struct Loaded {
        var settings: RoomSettings
        var state: RoomState
        var sinceSnapshot: Int
        var subscribers: [UUID: Subscriber] = [:]
    }
    struct Subscriber {
        var actor: Actor
        var channel: RoomMailbox
    }
    private var rooms: [String: Loaded] = [:]
    /// Rooms with a submission in progress, and who waits for each: one at a time per room, so
    /// numbers are handed out in the order operations are stored.
    private var busy: Set<String> = []
    private var waiting: [String: [CheckedContinuation<Void, Never>]] = [:]
    private let encoder = RoomHost.makeEncoder()
    /// How rooms, operations and snapshots are written: sorted keys, so equal values are equal text.
    private static func makeEncoder() -> JSONEncoder {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys]
        return e
    }
    private let decoder = JSONDecoder()
    /// The settings of rooms held here each time they change, here or on another server (after
    /// `settingsNotice`), for whoever tells the connected people: one reader.
    public nonisolated let settingsChanges: AsyncStream<RoomSettings>
    private let settingsChangesInput: AsyncStream<RoomSettings>.Continuation
    /// The channel on which a server tells the others that a room's settings changed (the payload
    /// is `instance room-id`); they read the settings again from the store.
    public static let settingsChannel = "proteinar_room_settings"
    /// This host among the servers on one store: its own notices come back to it and are skipped.
    public nonisolated let instance = UUID().uuidString.prefix(12).lowercased()

    public init(store: any RoomLogStore, snapshotInterval: Int = 500) {
        self.store = store
        self.snapshotInterval = max(1, snapshotInterval)
        // The newest changes win when nobody reads: the latest settings are what matters.
        let (changes, input) = AsyncStream<RoomSettings>.makeStream(bufferingPolicy: .bufferingNewest(256))
        settingsChanges = changes
        settingsChangesInput = input
    }

    // MARK: Rooms

    /// Creates a room (its id must be new) and stores it.
    public func create(_ settings: RoomSettings) async throws -> RoomSettings {
        guard try await store.createRoom(id: settings.id, settingsJSON: String(decoding: try encoder.encode(settings), as: UTF8.self)) else {
            throw RoomError(.invalid, "room \(settings.id) exists already")
        }
        rooms[settings.id] = Loaded(settings: settings, state: RoomState(), sinceSnapshot: 0)
        return settings
    }

    /// The room's settings as stored now (another server may have changed them).
    public func settings(of id: String) async throws -> RoomSettings {
        try await loadWithStoredSettings(id).settings
    }

    /// The room's content for someone who may read it: what a late joiner starts from.
    public func snapshot(of id: String, for actor: Actor) async throws -> RoomState {
        let room = try await load(id)
        guard room.settings.mayRead(actor) else { throw RoomError(.forbidden, "you are not a member of room \(id)") }
        return room.state
    }

    /// Accepted operations after `sequence` (at most `limit`), for a client that reconnects: no gap,
    /// no duplicate.
    public func operations(in id: String, after sequence: UInt64, limit: Int = .max, for actor: Actor) async throws -> [LoggedOperation] {
        let room = try await load(id)
        guard room.settings.mayRead(actor) else { throw RoomError(.forbidden, "you are not a member of room \(id)") }
        return try await Self.logged(store, in: id, after: sequence, limit: limit)
    }

    /// Stored operations of the room after `sequence`, in order, read and decoded a page at a time
    /// off the actor, so a long read holds up no other room.
    private nonisolated static func logged(_ store: any RoomLogStore, in id: String, after sequence: UInt64, limit: Int = .max) async throws -> [LoggedOperation] {
        var out: [LoggedOperation] = []
        var after = Int64(clamping: sequence)
        let decoder = JSONDecoder()
        while out.count < limit {
            let pageSize = min(1_000, limit - out.count)
            let page = try await store.operations(roomID: id, after: after, limit: pageSize)
            for stored in page { out.append(try decoder.decode(LoggedOperation.self, from: Data(stored.json.utf8))) }
            guard let last = page.last, page.count == pageSize else { break }
            after = last.sequence
        }
        return out
    }

    private func logged(in id: String, after sequence: UInt64) async throws -> [LoggedOperation] {
        try await Self.logged(store, in: id, after: sequence)
    }

    // MARK: Operations

    /// Checks and applies `op`; when it is new, it is stored before this returns and then sent to
    /// the room's subscribers. A resend returns the original sequence and changes nothing.
    public func submit(_ op: ClientOperation, by actor: Actor, to id: String) async throws -> RoomState.Outcome {
        await acquire(id)
        defer { release(id) }
        // Another server may take the next number first: then catch up from the log (subscribers
        // get what they missed) and number the operation again.
        for _ in 0..<8 {
            if let outcome = try await submitOnce(op, by: actor, to: id) { return outcome }
            try await catchUp(id)
        }
        throw RoomError(.invalid, "the room is busy on other servers; send the operation again")
    }

    /// nil when the number was taken by another server.
    private func submitOnce(_ op: ClientOperation, by actor: Actor, to id: String) async throws -> RoomState.Outcome? {
        let outcome = try await validate(op, by: actor, in: id)
        guard case .accepted(let logged) = outcome else { return outcome }
        let json = String(decoding: try encoder.encode(logged), as: UTF8.self)
        guard try await store.appendOperation(StoredRoomOperation(roomID: id, sequence: Int64(logged.sequence), json: json)) else {
            return nil
        }
        // Applied in place (no copy of the room's strokes) now that it is stored; the room stays
        // loaded while it is busy.
        rooms[id]?.state.replay(logged)
        rooms[id]?.sinceSnapshot += 1
        let update = RoomUpdate(operation: logged, storedJSON: json)
        if let subscribers = rooms[id]?.subscribers.values {
            for subscriber in subscribers { subscriber.channel.post(update) }
        }
        // The operation is stored and told: a snapshot only speeds up loading, so failing to save
        // one loses nothing (the next interval tries again).
        if let room = rooms[id], room.sinceSnapshot >= snapshotInterval {
            rooms[id]?.sinceSnapshot = 0
            // Encoded and saved beside the room's work, not in its way: a large room's snapshot
            // takes milliseconds that no submission should wait for.
            let state = room.state, store = store
            Task.detached(priority: .utility) {
                if let snapshot = try? Self.makeEncoder().encode(state) {
                    try? await store.saveSnapshot(roomID: id, sequence: Int64(state.sequence), json: String(decoding: snapshot, as: UTF8.self))
                }
            }
        }
        return outcome
    }

    private func validate(_ op: ClientOperation, by actor: Actor, in id: String) async throws -> RoomState.Outcome {
        let room = try await load(id)
        return try room.state.validate(op, by: actor, in: room.settings)
    }

    /// A live view of the room: its state now, and its accepted operations from then on, in order,
    /// until the stream is dropped. With `after` (at most the state's sequence), also the stored
    /// operations after it (`backlog`): a client that reconnects gets no gap and no duplicate.
    /// Taken under the room's lock, so no operation falls between the state and the stream.
    public func subscribe(to id: String, for actor: Actor, after: UInt64? = nil) async throws -> RoomSubscription {
        await acquire(id)
        defer { release(id) }
        let settings = try await loadWithStoredSettings(id).settings
        guard settings.mayRead(actor) else { throw RoomError(.forbidden, "you are not a member of room \(id)") }
        let upTo = try await load(id).state.sequence
        var backlog: [LoggedOperation] = []
        if let after, after < upTo {
            backlog = try await logged(in: id, after: after).filter { $0.sequence <= upTo }
        }
        var room = try await load(id)  // unchanged while the lock is held
        let key = UUID()
        let mailbox = RoomMailbox { [weak self] in Task { await self?.unsubscribe(key, from: id) } }
        room.subscribers[key] = Subscriber(actor: actor, channel: mailbox)
        rooms[id] = room
        return RoomSubscription(snapshot: room.state, settings: settings, backlog: backlog, updates: mailbox)
    }

    /// Changes a room's settings (who may do what, its name, its place) from what is stored now,
    /// under the room's lock, so two changes at once both take effect. Subscribers who may no
    /// longer read the room are let go (their stream ends).
    public func modifySettings(of id: String, _ change: @Sendable (inout RoomSettings) throws -> Void) async throws -> RoomSettings {
        await acquire(id)
        defer { release(id) }
        var settings = try await loadWithStoredSettings(id).settings
        try change(&settings)
        try await store.saveRoom(id: id, settingsJSON: String(decoding: try encoder.encode(settings), as: UTF8.self))
        rooms[id]?.settings = settings
        letGoOfNonReaders(id, settings)
        // Stored: other servers read it again when told. A lost notice leaves their settings as
        // they were until their next read (a join, a change), which is what they had before.
        try? await store.notify(channel: Self.settingsChannel, payload: "\(instance) \(id)")
        return settings
    }

    /// A notice on `settingsChannel`: another server changed the room's settings. When the room is
    /// held here, read them again, let go of subscribers who may no longer read, and pass the
    /// settings on (`settingsChanges`). This host's own notices and malformed ones are skipped.
    public func settingsNotice(_ payload: String) async {
        let parts = payload.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0] != instance, let id = parts.last.map(String.init),
              rooms[id] != nil else { return }  // nobody here is in the room
        await acquire(id)
        defer { release(id) }
        guard rooms[id] != nil, let settings = try? await loadWithStoredSettings(id).settings else { return }
        letGoOfNonReaders(id, settings)
    }

    /// Ends the streams of subscribers who may no longer read, and tells of the new settings.
    private func letGoOfNonReaders(_ id: String, _ settings: RoomSettings) {
        for (key, subscriber) in rooms[id]?.subscribers ?? [:] where !settings.mayRead(subscriber.actor) {
            subscriber.channel.finish()
            rooms[id]?.subscribers[key] = nil
        }
        if rooms[id] != nil { settingsChangesInput.yield(settings) }
    }

    /// The room, with its settings read again from the store: members or rights may have changed
    /// on another server.
    private func loadWithStoredSettings(_ id: String) async throws -> Loaded {
        _ = try await load(id)
        if let stored = try await store.room(id: id) {
            rooms[id]?.settings = try decoder.decode(RoomSettings.self, from: Data(stored.settingsJSON.utf8))
        }
        return try await load(id)
    }

    // MARK: Other servers

    /// Listens for operations other servers append (PostgreSQL LISTEN/NOTIFY) and passes them on
    /// to this server's subscribers; returns at once on a store only one server uses. Runs until
    /// cancelled, listening again after a failure and catching up on what it may have missed.
    public func watchOtherServers() async {
        while !Task.isCancelled {
            do {
                try await store.watchAppends { [weak self] room, sequence in await self?.appended(room, sequence) }
                if !Task.isCancelled { return }  // the store has nothing to tell
            } catch {
                try? await Task.sleep(for: .seconds(1))
                for id in rooms.keys {
                    await acquire(id)
                    try? await catchUp(id)
                    release(id)
                }
            }
        }
    }

    /// Whether other servers share the store, and so want to hear what this one knows only in
    /// memory (who is in a room).
    public nonisolated var sharedByServers: Bool { store.sharedByServers }

    /// Tells the other servers on the store something about rooms that the store does not keep
    /// (presence): a notice of at most `RoomNotice.maximumPayloadBytes` on `channel`.
    public nonisolated func notifyOtherServers(channel: String, payload: String) async throws {
        try await store.notify(channel: channel, payload: payload)
    }

    /// Notices of any server on `channels`, until cancelled or the connection fails (then call again).
    public nonisolated func watchNotices(on channels: [String], _ onNotice: @escaping @Sendable (String, String) async -> Void) async throws {
        try await store.watchNotices(on: channels, onNotice)
    }

    /// An operation was appended somewhere: catch up when it is news to a room held here.
    func appended(_ id: String, _ sequence: Int64) async {
        guard let room = rooms[id], UInt64(clamping: sequence) > room.state.sequence else { return }
        await acquire(id)
        defer { release(id) }
        if let room = rooms[id], UInt64(clamping: sequence) > room.state.sequence { try? await catchUp(id) }
    }

    /// Applies what the log holds beyond the room's state and passes it on to subscribers.
    private func catchUp(_ id: String) async throws {
        guard var room = rooms[id] else { return }
        let missed = try await logged(in: id, after: room.state.sequence)
        room = rooms[id] ?? room
        for logged in missed {
            guard logged.sequence > room.state.sequence else { continue }
            room.state.replay(logged)
            let update = RoomUpdate(operation: logged, storedJSON: nil)
            for subscriber in room.subscribers.values { subscriber.channel.post(update) }
        }
        rooms[id] = room
    }

    private func acquire(_ id: String) async {
        if busy.insert(id).inserted { return }
        await withCheckedContinuation { waiting[id, default: []].append($0) }
    }

    private func release(_ id: String) {
        if var queue = waiting[id], !queue.isEmpty {
            let next = queue.removeFirst()
            waiting[id] = queue.isEmpty ? nil : queue
            next.resume()  // the room stays busy: the next submission has it
        } else {
            busy.remove(id)
            // Nobody is watching and nothing is waiting: let the room go from memory (it loads
            // again from its snapshot and the log's tail).
            if rooms[id]?.subscribers.isEmpty == true { rooms[id] = nil }
        }
    }

    private func unsubscribe(_ key: UUID, from id: String) {
        rooms[id]?.subscribers[key] = nil
        // Nobody is watching: let the room go from memory (it loads again from its snapshot).
        if rooms[id]?.subscribers.isEmpty == true, !busy.contains(id) { rooms[id] = nil }
    }

    // MARK: Loading

    private func load(_ id: String) async throws -> Loaded {
        if let room = rooms[id] { return room }
        guard let stored = try await store.room(id: id) else { throw RoomError(.notFound, "no room \(id.prefix(64))") }
        let settings = try decoder.decode(RoomSettings.self, from: Data(stored.settingsJSON.utf8))
        var state = RoomState()
        if let snapshot = try await store.latestSnapshot(roomID: id) {
            state = try decoder.decode(RoomState.self, from: Data(snapshot.json.utf8))
        }
        let tail = try await logged(in: id, after: state.sequence)
        for op in tail { state.replay(op) }
        if let loaded = rooms[id] { return loaded }  // loaded by another call while this one waited
        let room = Loaded(settings: settings, state: state, sinceSnapshot: tail.count)
        rooms[id] = room
        return room
    }
}

/// An accepted operation as subscribers receive it, with the JSON it was stored as when at hand, so
/// that a broadcast to many connections encodes it once.
public struct RoomUpdate: Sendable {
    public let operation: LoggedOperation
    public let storedJSON: String?
    public var sequence: UInt64 { operation.sequence }
}

/// A live view of a room: its state and settings when the view began, the stored operations a
/// resuming client missed, and the mailbox of operations accepted from then on.
public struct RoomSubscription: Sendable {
    public let snapshot: RoomState
    public let settings: RoomSettings
    public let backlog: [LoggedOperation]
    public let updates: RoomMailbox
}
