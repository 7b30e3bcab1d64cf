import Foundation
import Rooms
import Storage

/// Other servers on the same store: their appended operations and settings notices reach this
/// server's subscribers, and a room held here is read again when it fell behind.
extension RoomHost {
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

    /// An operation was appended somewhere: catch up when it is news to a room held here.
    func appended(_ id: String, _ sequence: Int64) async {
        guard let room = rooms[id], UInt64(clamping: sequence) > room.state.sequence else { return }
        await acquire(id)
        defer { release(id) }
        if let room = rooms[id], UInt64(clamping: sequence) > room.state.sequence { try? await catchUp(id) }
    }

    /// Applies what the log holds beyond the room's state and passes it on to subscribers.
    func catchUp(_ id: String) async throws {
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

    /// Reads the room's content again from the store (its snapshot and the log's tail), dropping
    /// what this server applied but did not store, and passes on to subscribers what other servers
    /// stored since the last operation they were told.
    func reload(_ id: String) async throws {
        guard let room = rooms[id] else { return }
        let state = try await Self.storedState(store, of: id)
        rooms[id]?.state = state
        let missed = try await logged(in: id, after: room.committed).filter { $0.sequence <= state.sequence }
        rooms[id]?.committed = state.sequence
        let updates = missed.map { RoomUpdate(operation: $0, storedJSON: nil) }
        for subscriber in rooms[id]?.subscribers.values.map({ $0 }) ?? [] where !updates.isEmpty { subscriber.channel.post(updates) }
    }
}
