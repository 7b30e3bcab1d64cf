import Foundation
import Rooms
import Storage

/// Subscriptions: live views of a room (its state, then its operations in order), settings changes
/// and who may go on reading, and letting rooms go from memory once nobody needs them.
extension RoomHost {
    /// A live view of the room: its state now, and its accepted operations from then on, in order,
    /// until the stream is dropped. With `after` (at most the state's sequence), also the stored
    /// operations after it (`backlog`): a client that reconnects gets no gap and no duplicate.
    /// Taken under the room's lock, so no operation falls between the state and the stream. More
    /// than `longestBacklog` behind, no backlog: the log is not read (under the lock) for nothing.
    public func subscribe(to id: String, for actor: Participant, after: UInt64? = nil, longestBacklog: UInt64 = .max) async throws -> RoomSubscription {
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
    func letGoOfNonReaders(_ id: String, _ settings: RoomSettings) {
        for (key, subscriber) in rooms[id]?.subscribers ?? [:] where !settings.mayRead(subscriber.actor) {
            subscriber.channel.finish()
            rooms[id]?.subscribers[key] = nil
        }
        if rooms[id] != nil { settingsChangesInput.yield(settings) }
    }

    /// The room, with its settings read again from the store: members or rights may have changed
    /// on another server.
    func loadWithStoredSettings(_ id: String) async throws -> Loaded {
        _ = try await load(id)
        if let stored = try await store.room(id: id) {
            rooms[id]?.settings = try decoder.decode(RoomSettings.self, from: Data(stored.settingsJSON.utf8))
        }
        return try await load(id)
    }

    func unsubscribe(_ key: UUID, from id: String) {
        rooms[id]?.subscribers[key] = nil
        if rooms[id]?.isIdle == true, !busy.contains(id) { unloadLater(id) }
    }

    /// Lets the room go from memory once it has been idle a while (it loads again from its
    /// snapshot and the log's tail); one check pending per room.
    func unloadLater(_ id: String) {
        guard rooms[id]?.unloadPending == false else { return }
        rooms[id]?.unloadPending = true
        Task { [weak self] in
            try? await Task.sleep(for: Self.idleUnload)
            await self?.unloadIfIdle(id)
        }
    }

    func unloadIfIdle(_ id: String) {
        rooms[id]?.unloadPending = false
        guard let room = rooms[id], room.isIdle, !busy.contains(id) else { return }
        rooms[id] = nil
        unloaded(room.state.totalPoints)
    }
}
