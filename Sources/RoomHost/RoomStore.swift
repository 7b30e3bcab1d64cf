import Foundation
import Rooms
import Storage

/// How a host reads a room from its store, away from the actor: the log a page at a time, the
/// stored state (snapshot and tail), a past state from the history base, and when to snapshot and
/// fold the log. None of it touches a loaded room, so a long read holds up no other room.
extension RoomHost {
    /// Stored operations of the room after `sequence`, in order, read and decoded a page at a time
    /// off the actor, so a long read holds up no other room.
    nonisolated static func logged(_ store: any RoomLogStore, in id: String, after sequence: UInt64, limit: Int = .max) async throws -> [LoggedOperation] {
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

    /// Stored operations after `sequence` as the log holds them (JSON text, nothing decoded): at
    /// most `limit` and, past the first, no more than `maxBytes` in all. `more`: the log goes on.
    nonisolated static func stored(_ store: any RoomLogStore, in id: String, after sequence: UInt64, limit: Int,
                                   maxBytes: Int) async throws -> (operations: [StoredRoomOperation], more: Bool) {
        var out: [StoredRoomOperation] = []
        var bytes = 0
        var after = Int64(clamping: sequence)
        while out.count < limit {
            // Small pages, so that a log of large operations is not read far past `maxBytes`.
            let pageSize = min(100, limit - out.count)
            let page = try await store.operations(roomID: id, after: after, limit: pageSize)
            for stored in page {
                if !out.isEmpty, bytes + stored.json.utf8.count > maxBytes { return (out, true) }
                bytes += stored.json.utf8.count
                out.append(stored)
            }
            guard let last = page.last, page.count == pageSize else { return (out, false) }
            after = last.sequence
        }
        return (out, true)
    }

    /// The room's state after `sequence`, from its history base (or the log's first operation).
    /// `cancellable`: stops between pages when the task is cancelled (the client who asked left).
    nonisolated static func replayed(_ store: any RoomLogStore, in id: String, upTo sequence: UInt64,
                                     cancellable: Bool = false) async throws -> RoomState {
        var state = RoomState()
        let decoder = JSONDecoder()
        if let base = try await store.historyBase(roomID: id) {
            guard UInt64(base.sequence) <= sequence else {
                throw RoomError(.gone, "room \(id)'s history before operation \(base.sequence) is folded into a snapshot; the server keeps the last operations only")
            }
            state = try decoder.decode(RoomState.self, from: Data(base.json.utf8))
        }
        var after = Int64(state.sequence)
        while state.sequence < sequence {
            if cancellable { try Task.checkCancellation() }
            let page = try await store.operations(roomID: id, after: after, limit: Int(min(1_000, sequence - state.sequence)))
            for stored in page { state.replay(try decoder.decode(LoggedOperation.self, from: Data(stored.json.utf8))) }
            guard let last = page.last else { break }
            after = last.sequence
        }
        return state
    }

    /// Whether the room's next snapshot is due, after `operations` operations of log beyond the last
    /// one, of `weight` (`replayWeight`: each operation and its points). A small room (under 2,000
    /// points and strokes, where a snapshot costs little) every `snapshotInterval` operations; a
    /// bigger one once the log beyond it weighs a quarter of what the room holds. A snapshot's cost
    /// grows with the room; spacing them with its size keeps that cost per operation bounded, and
    /// loading replays at most a quarter of the room.
    func snapshotDue(_ state: RoomState, operations: Int, weight: Int) -> Bool {
        let size = state.totalPoints + state.strokes.count
        return size < 2_000 ? operations >= snapshotInterval : weight >= max(snapshotInterval, size / 4)
    }

    /// Folds the room's older operations into its history base once the log holds twice
    /// `keeping` of them beyond it: the base moves to `keeping` operations before `sequence`.
    nonisolated static func trimHistory(_ store: any RoomLogStore, of id: String, at sequence: UInt64, keeping: Int) async throws {
        guard keeping > 0 else { return }
        let base = UInt64(try await store.historyBaseSequence(roomID: id))
        guard sequence >= base + 2 * UInt64(keeping) else { return }
        let target = sequence - UInt64(keeping)
        let state = try await replayed(store, in: id, upTo: target)
        guard state.sequence == target else { return }  // the log is not whole: leave it
        try await store.trimOperations(roomID: id, through: Int64(target), baseJSON: try state.snapshotJSON())
    }

    /// The room's content as stored: its latest snapshot and the log after it.
    nonisolated static func storedState(_ store: any RoomLogStore, of id: String) async throws -> RoomState {
        try await storedStateAndTail(store, of: id).state
    }

    /// What replaying an operation costs a room's loading: one, and one for each of its points.
    static func replayWeight(_ op: LoggedOperation) -> Int { 1 + op.operation.pointCount }

    /// The stored content, and the operations of the log it replayed after the snapshot and their weight (`replayWeight`).
    nonisolated static func storedStateAndTail(_ store: any RoomLogStore, of id: String) async throws -> (state: RoomState, tail: Int, weight: Int) {
        var state = RoomState()
        if let snapshot = try await store.latestSnapshot(roomID: id) {
            state = try JSONDecoder().decode(RoomState.self, from: Data(snapshot.json.utf8))
        }
        let tail = try await logged(store, in: id, after: state.sequence)
        for op in tail { state.replay(op) }
        return (state, tail.count, tail.reduce(0) { $0 + replayWeight($1) })
    }
}
