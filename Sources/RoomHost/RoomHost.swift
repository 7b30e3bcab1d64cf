import Foundation
import Logging
import Rooms
import Storage

/// Hosts drawing rooms on a library store: loads a room from its latest snapshot and the log's
/// tail, checks each operation with the room's rules, stores it, and only then reports it accepted,
/// so nothing anyone was told had happened can be lost by a crash. Subscribers (the live
/// connections) receive accepted operations in sequence order.
public actor RoomHost {
    public let store: any RoomLogStore
    /// Where a snapshot that could not be saved is reported (the room loses nothing: its log holds every operation).
    static let logger = Logger(label: "proteinar.rooms")
    /// Operations between snapshots, at least: a small room loads from at most this many log
    /// entries. A big room waits longer (`snapshotDue`), so writing snapshots costs each operation
    /// the same however big the room.
    public let snapshotInterval: Int
    /// Operations of history the log keeps at least (0: all). Once a room's log holds twice this
    /// many, the older half is folded into its history base and deleted: the store stays bounded
    /// by the room's content, not by how long people have drawn in it.
    public let historyOperations: Int

    struct Loaded {
        var settings: RoomSettings
        var state: RoomState
        var sinceSnapshot: Int
        /// The weight (`replayWeight`) of those operations.
        var weightSinceSnapshot: Int
        var subscribers: [UUID: Subscriber] = [:]
        /// Submissions waiting for the next batch, and whether a batch is being stored.
        var queue: [Submission] = []
        var committing = false
        /// The last sequence stored and told to subscribers (the state may be ahead of it only
        /// while a batch is being stored, under the room's lock).
        var committed: UInt64
        /// A check whether to let it go from memory is pending (`unloadLater`).
        var unloadPending = false
        /// Nothing keeps it in memory: no subscriber, no submission waiting or being stored.
        var isIdle: Bool { subscribers.isEmpty && queue.isEmpty && !committing }
    }
    struct Submission {
        var operation: ClientOperation
        var actor: Participant
        var done: SubmissionTicket
    }
    struct Subscriber {
        var actor: Participant
        var channel: RoomMailbox
    }
    var rooms: [String: Loaded] = [:]
    /// Rooms with a submission in progress, and who waits for each: one at a time per room, so
    /// numbers are handed out in the order operations are stored.
    var busy: Set<String> = []
    var waiting: [String: [CheckedContinuation<Void, Never>]] = [:]
    let encoder = RoomHost.makeEncoder()
    /// How rooms, operations and snapshots are written: sorted keys, so equal values are equal text.
    static func makeEncoder() -> JSONEncoder {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys]
        return e
    }
    let decoder = JSONDecoder()
    /// The settings of rooms held here each time they change, here or on another server (after
    /// `settingsNotice`), for whoever tells the connected people: one reader.
    public nonisolated let settingsChanges: AsyncStream<RoomSettings>
    let settingsChangesInput: AsyncStream<RoomSettings>.Continuation
    /// The channel on which a server tells the others that a room's settings changed (the payload
    /// is `instance room-id`); they read the settings again from the store.
    public static let settingsChannel = "proteinar_room_settings"
    /// This host among the servers on one store: its own notices come back to it and are skipped.
    public nonisolated let instance = UUID().uuidString.prefix(12).lowercased()

    /// Told a room's points when it leaves memory: the server gives memory back after a big one.
    let unloaded: @Sendable (_ points: Int) -> Void

    public init(store: any RoomLogStore, snapshotInterval: Int = 500, historyOperations: Int = 100_000, unloaded: @escaping @Sendable (Int) -> Void = { _ in }) {
        self.store = store
        self.unloaded = unloaded
        self.snapshotInterval = max(1, snapshotInterval)
        self.historyOperations = max(0, historyOperations)
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
        rooms[settings.id] = Loaded(settings: settings, state: RoomState(), sinceSnapshot: 0, weightSinceSnapshot: 0, committed: 0)
        return settings
    }

    /// The room's settings as stored now (another server may have changed them).
    public func settings(of id: String) async throws -> RoomSettings {
        try await loadWithStoredSettings(id).settings
    }

    /// The room's content for someone who may read it: what a late joiner starts from.
    public func snapshot(of id: String, for actor: Participant) async throws -> RoomState {
        // Under the room's lock: between a batch's numbering and its commit the room holds
        // operations nobody may be shown yet.
        await acquire(id)
        defer { release(id) }
        let room = try await load(id)
        guard room.settings.mayRead(actor) else { throw RoomError(.forbidden, "you are not a member of room \(id)") }
        return room.state
    }

    /// Accepted operations after `sequence` (at most `limit`), for a client that reconnects: no gap,
    /// no duplicate.
    public func operations(in id: String, after sequence: UInt64, limit: Int = .max, for actor: Participant) async throws -> [LoggedOperation] {
        try await checkLogReadable(id, after: sequence, for: actor)
        return try await Self.logged(store, in: id, after: sequence, limit: limit)
    }

    /// Throws unless `actor` may read the room and its log still holds the operations after `sequence`.
    func checkLogReadable(_ id: String, after sequence: UInt64, for actor: Participant) async throws {
        let room = try await load(id)
        guard room.settings.mayRead(actor) else { throw RoomError(.forbidden, "you are not a member of room \(id)") }
        let base = try await store.historyBaseSequence(roomID: id)
        guard Int64(clamping: sequence) >= base else {
            throw RoomError(.gone, "operations 1 to \(base) of room \(id) are folded into its snapshot; read the room's state instead")
        }
    }

    /// Stored operations after `sequence` as the log holds them, at most `limit` and about
    /// `maxBytes` (`stored`): a page of the log for HTTP, sent without decoding.
    public func storedOperations(in id: String, after sequence: UInt64, limit: Int, maxBytes: Int,
                                 for actor: Participant) async throws -> (operations: [StoredRoomOperation], more: Bool) {
        try await checkLogReadable(id, after: sequence, for: actor)
        return try await Self.stored(store, in: id, after: sequence, limit: limit, maxBytes: maxBytes)
    }

    func logged(in id: String, after sequence: UInt64) async throws -> [LoggedOperation] {
        try await Self.logged(store, in: id, after: sequence)
    }

    /// The room as it was right after operation `sequence` (0: empty), rebuilt from the log, read
    /// and replayed off the actor: the history a room's slider shows. Costs one pass over the log
    /// up to `sequence`, so callers limit how often a client may ask.
    public func state(of id: String, at sequence: UInt64, for actor: Participant) async throws -> RoomState {
        await acquire(id)
        let room: Loaded
        do { room = try await load(id) } catch { release(id); throw error }
        release(id)
        guard room.settings.mayRead(actor) else { throw RoomError(.forbidden, "you are not a member of room \(id)") }
        guard sequence <= room.state.sequence else {
            throw RoomError(.invalid, "at \(sequence): room \(id) has \(room.state.sequence) operations so far")
        }
        if sequence == room.state.sequence { return room.state }
        return try await Self.replayed(store, in: id, upTo: sequence, cancellable: true)
    }

    /// Operations stored together at most, and points: a batch is checked and encoded without a
    /// pause, on one of the few threads every task shares, so its work stays a few milliseconds
    /// (256 strokes of 500 points took a quarter of a second and held up the server's other work).
    static let batchLimit = 256
    static let batchPointLimit = 4_096

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

    func acquire(_ id: String) async {
        if busy.insert(id).inserted { return }
        await withCheckedContinuation { waiting[id, default: []].append($0) }
    }

    func release(_ id: String) {
        if var queue = waiting[id], !queue.isEmpty {
            let next = queue.removeFirst()
            waiting[id] = queue.isEmpty ? nil : queue
            next.resume()  // the room stays busy: the next submission has it
        } else {
            busy.remove(id)
            if rooms[id]?.isIdle == true { unloadLater(id) }
        }
    }

    /// How long a room nobody watches stays in memory: operations sent over HTTP one after another
    /// find it loaded, instead of each reading the room again from its snapshot and log.
    static let idleUnload: Duration = .seconds(20)

    // MARK: Loading

    func load(_ id: String) async throws -> Loaded {
        if let room = rooms[id] { return room }
        guard let stored = try await store.room(id: id) else { throw RoomError(.notFound, "no room \(id.prefix(64))") }
        let settings = try decoder.decode(RoomSettings.self, from: Data(stored.settingsJSON.utf8))
        let (state, tail, weight) = try await Self.storedStateAndTail(store, of: id)
        if let loaded = rooms[id] { return loaded }  // loaded by another call while this one waited
        let room = Loaded(settings: settings, state: state, sinceSnapshot: tail, weightSinceSnapshot: weight, committed: state.sequence)
        rooms[id] = room
        unloadLater(id)  // loaded for a read (HTTP), it too leaves memory once idle
        return room
    }

}
