import Foundation
import Library
import Logging
import SketchRooms

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
        var actor: Actor
        var done: SubmissionTicket
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

    /// Told a room's points when it leaves memory: the server gives memory back after a big one.
    private let unloaded: @Sendable (_ points: Int) -> Void

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
    public func snapshot(of id: String, for actor: Actor) async throws -> RoomState {
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
    public func operations(in id: String, after sequence: UInt64, limit: Int = .max, for actor: Actor) async throws -> [LoggedOperation] {
        try await checkLogReadable(id, after: sequence, for: actor)
        return try await Self.logged(store, in: id, after: sequence, limit: limit)
    }

    /// Throws unless `actor` may read the room and its log still holds the operations after `sequence`.
    private func checkLogReadable(_ id: String, after sequence: UInt64, for actor: Actor) async throws {
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
                                 for actor: Actor) async throws -> (operations: [StoredRoomOperation], more: Bool) {
        try await checkLogReadable(id, after: sequence, for: actor)
        return try await Self.stored(store, in: id, after: sequence, limit: limit, maxBytes: maxBytes)
    }

    private func logged(in id: String, after sequence: UInt64) async throws -> [LoggedOperation] {
        try await Self.logged(store, in: id, after: sequence)
    }

    /// The room as it was right after operation `sequence` (0: empty), rebuilt from the log, read
    /// and replayed off the actor: the history a room's slider shows. Costs one pass over the log
    /// up to `sequence`, so callers limit how often a client may ask.
    public func state(of id: String, at sequence: UInt64, for actor: Actor) async throws -> RoomState {
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

    // MARK: Operations

    /// Checks and applies `op`; when it is new, it is stored before this returns and then sent to
    /// the room's subscribers. A resend returns the original sequence and changes nothing.
    ///
    /// Operations of one room are numbered in the order they arrive and stored in batches: what
    /// arrives while a batch is being written goes into the next one (group commit), so a busy
    /// room costs one commit for several operations instead of one each, and the order holds.
    public func submit(_ op: ClientOperation, by actor: Actor, to id: String) async throws -> RoomState.Outcome {
        try await enqueue(op, by: actor, to: id).outcome()
    }

    /// Queues `op` for the room's next batch and returns at once with its ticket, whose outcome
    /// comes once the batch is stored: a connection can hand over its next operation while this
    /// one is being stored (several in flight, numbered in the order they were queued).
    public func enqueue(_ op: ClientOperation, by actor: Actor, to id: String) async throws -> SubmissionTicket {
        _ = try await load(id)
        // No suspension since `load`: the room is here.
        guard rooms[id] != nil else { throw RoomError(.notFound, "no room \(id.prefix(64))") }
        let ticket = SubmissionTicket()
        rooms[id]?.queue.append(Submission(operation: op, actor: actor, done: ticket))
        if rooms[id]?.committing == false {
            rooms[id]?.committing = true
            Task { await self.commitQueued(in: id) }
        }
        return ticket
    }

    /// Stores the room's queued operations a batch at a time, under the room's lock (a late joiner
    /// never sees an operation that is not stored yet), until none are left.
    private func commitQueued(in id: String) async {
        while true {
            await acquire(id)
            guard let queue = rooms[id]?.queue, !queue.isEmpty else {
                rooms[id]?.committing = false
                release(id)
                return
            }
            let batch = Self.nextBatch(queue)
            rooms[id]?.queue.removeFirst(batch.count)
            await commit(batch, in: id)
            release(id)
        }
    }

    /// Operations stored together at most, and points: a batch is checked and encoded without a
    /// pause, on one of the few threads every task shares, so its work stays a few milliseconds
    /// (256 strokes of 500 points took a quarter of a second and held up the server's other work).
    static let batchLimit = 256
    static let batchPointLimit = 4_096

    /// The queue's first operations up to the limits (at least one).
    static func nextBatch(_ queue: [Submission]) -> [Submission] {
        var points = 0, count = 0
        for submission in queue.prefix(batchLimit) {
            points += submission.operation.operation.pointCount
            if count > 0, points > batchPointLimit { break }
            count += 1
        }
        return Array(queue.prefix(max(1, count)))
    }

    /// Checks the batch's operations in order against the room (each applied in place once
    /// checked, so the next is checked against it), stores the accepted ones in one append, and
    /// only then tells their senders and the subscribers. When another server took a number
    /// first, the room is read again from the store and the batch numbered again.
    private func commit(_ batch: [Submission], in id: String) async {
        for _ in 0..<8 {
            var outcomes: [Result<RoomState.Outcome, any Error>] = []
            var accepted: [RoomUpdate] = []
            for submission in batch {
                do {
                    let outcome = try check(submission, in: id)
                    if case .accepted(let logged) = outcome {
                        let json = try logged.storedJSON(encoder)
                        rooms[id]?.state.replay(logged)
                        accepted.append(RoomUpdate(operation: logged, storedJSON: json))
                    }
                    outcomes.append(.success(outcome))
                } catch {
                    outcomes.append(.failure(error))
                }
            }
            var stored = true
            do {
                if !accepted.isEmpty {
                    stored = try await store.appendOperations(accepted.map {
                        StoredRoomOperation(roomID: id, sequence: Int64($0.sequence), json: $0.storedJSON ?? "")
                    })
                }
            } catch {
                // Not stored: forget them here too (the room is read again from the store).
                try? await reload(id)
                for (submission, outcome) in zip(batch, outcomes) {
                    if case .success(.accepted) = outcome {
                        submission.done.resolve(.failure(RoomError(.invalid, "the operation could not be stored; send it again")))
                    } else {
                        submission.done.resolve(outcome)
                    }
                }
                return
            }
            if stored {
                published(accepted, in: id)
                for (submission, outcome) in zip(batch, outcomes) { submission.done.resolve(outcome) }
                return
            }
            // Another server took a number first: catch up from the store, then number again.
            do { try await reload(id) } catch { break }
        }
        for submission in batch {
            submission.done.resolve(.failure(RoomError(.invalid, "the room is busy on other servers; send the operation again")))
        }
    }

    /// What the room says to a submission now. No copy of the room outlives the call: one held while
    /// the room changes in place would make every change copy all its strokes.
    private func check(_ submission: Submission, in id: String) throws -> RoomState.Outcome {
        guard let settings = rooms[id]?.settings, let outcome = try rooms[id]?.state.validate(submission.operation, by: submission.actor, in: settings) else {
            throw RoomError(.notFound, "no room \(id.prefix(64))")
        }
        return outcome
    }

    /// Stored operations go to the room's subscribers, all of a batch in one post each; a
    /// snapshot follows when one is due.
    private func published(_ updates: [RoomUpdate], in id: String) {
        guard let room = rooms[id], !updates.isEmpty else { return }
        rooms[id]?.committed = room.state.sequence
        for subscriber in room.subscribers.values { subscriber.channel.post(updates) }
        // Counted by what loading would replay: an operation and its points.
        let weight = updates.reduce(0) { $0 + Self.replayWeight($1.operation) }
        rooms[id]?.sinceSnapshot += updates.count
        rooms[id]?.weightSinceSnapshot += weight
        // The operations are stored and told: a snapshot only speeds up loading, so failing to save
        // one loses nothing (the next interval tries again).
        if snapshotDue(room.state, operations: room.sinceSnapshot + updates.count, weight: room.weightSinceSnapshot + weight) {
            rooms[id]?.sinceSnapshot = 0
            rooms[id]?.weightSinceSnapshot = 0
            // Encoded and saved beside the room's work, not in its way: a large room's snapshot
            // takes milliseconds that no submission should wait for.
            let state = room.state, store = store, history = historyOperations
            Task.detached(priority: .utility) {
                do {
                    try await store.saveSnapshot(roomID: id, sequence: Int64(state.sequence), json: try state.snapshotJSON())
                } catch {
                    Self.logger.error("room \(id): snapshot at \(state.sequence) not saved (the log keeps every operation): \(error)")
                    return
                }
                // Only behind a stored snapshot: the room always loads from one and the log after it.
                try? await Self.trimHistory(store, of: id, at: state.sequence, keeping: history)
            }
        }
    }

    /// Reads the room's content again from the store (its snapshot and the log's tail), dropping
    /// what this server applied but did not store, and passes on to subscribers what other servers
    /// stored since the last operation they were told.
    private func reload(_ id: String) async throws {
        guard let room = rooms[id] else { return }
        let state = try await Self.storedState(store, of: id)
        rooms[id]?.state = state
        let missed = try await logged(in: id, after: room.committed).filter { $0.sequence <= state.sequence }
        rooms[id]?.committed = state.sequence
        let updates = missed.map { RoomUpdate(operation: $0, storedJSON: nil) }
        for subscriber in rooms[id]?.subscribers.values.map({ $0 }) ?? [] where !updates.isEmpty { subscriber.channel.post(updates) }
    }

    private func validate(_ op: ClientOperation, by actor: Actor, in id: String) async throws -> RoomState.Outcome {
        let room = try await load(id)
        return try room.state.validate(op, by: actor, in: room.settings)
    }

    /// A live view of the room: its state now, and its accepted operations from then on, in order,
    /// until the stream is dropped. With `after` (at most the state's sequence), also the stored
    /// operations after it (`backlog`): a client that reconnects gets no gap and no duplicate.
    /// Taken under the room's lock, so no operation falls between the state and the stream. More
    /// than `longestBacklog` behind, no backlog: the log is not read (under the lock) for nothing.
    public func subscribe(to id: String, for actor: Actor, after: UInt64? = nil, longestBacklog: UInt64 = .max) async throws -> RoomSubscription {
        await acquire(id)
        defer { release(id) }
        let settings = try await loadWithStoredSettings(id).settings
        guard settings.mayRead(actor) else { throw RoomError(.forbidden, "you are not a member of room \(id)") }
        let upTo = try await load(id).state.sequence
        var backlog: [LoggedOperation] = []
        if let after, after < upTo, upTo - after <= longestBacklog {
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
        var updates: [RoomUpdate] = []
        for logged in missed where logged.sequence > room.state.sequence {
            room.state.replay(logged)
            updates.append(RoomUpdate(operation: logged, storedJSON: nil))
        }
        room.committed = room.state.sequence
        if !updates.isEmpty { for subscriber in room.subscribers.values { subscriber.channel.post(updates) } }
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
            if rooms[id]?.isIdle == true { unloadLater(id) }
        }
    }

    private func unsubscribe(_ key: UUID, from id: String) {
        rooms[id]?.subscribers[key] = nil
        if rooms[id]?.isIdle == true, !busy.contains(id) { unloadLater(id) }
    }

    /// How long a room nobody watches stays in memory: operations sent over HTTP one after another
    /// find it loaded, instead of each reading the room again from its snapshot and log.
    static let idleUnload: Duration = .seconds(20)

    /// Lets the room go from memory once it has been idle a while (it loads again from its
    /// snapshot and the log's tail); one check pending per room.
    private func unloadLater(_ id: String) {
        guard rooms[id]?.unloadPending == false else { return }
        rooms[id]?.unloadPending = true
        Task { [weak self] in
            try? await Task.sleep(for: Self.idleUnload)
            await self?.unloadIfIdle(id)
        }
    }

    private func unloadIfIdle(_ id: String) {
        rooms[id]?.unloadPending = false
        guard let room = rooms[id], room.isIdle, !busy.contains(id) else { return }
        rooms[id] = nil
        unloaded(room.state.totalPoints)
    }

    // MARK: Loading

    private func load(_ id: String) async throws -> Loaded {
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
