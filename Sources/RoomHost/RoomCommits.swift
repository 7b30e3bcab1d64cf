import Foundation
import Logging
import Rooms
import Storage

/// Committing: operations are checked against the room's rules, stored in batches, and only then
/// told to the room's subscribers and reported accepted.
extension RoomHost {
    /// Checks and applies `op`; when it is new, it is stored before this returns and then sent to
    /// the room's subscribers. A resend returns the original sequence and changes nothing.
    ///
    /// Operations of one room are numbered in the order they arrive and stored in batches: what
    /// arrives while a batch is being written goes into the next one (group commit), so a busy
    /// room costs one commit for several operations instead of one each, and the order holds.
    public func submit(_ op: ClientOperation, by actor: Participant, to id: String) async throws -> RoomState.Outcome {
        try await enqueue(op, by: actor, to: id).outcome()
    }

    /// Queues `op` for the room's next batch and returns at once with its ticket, whose outcome
    /// comes once the batch is stored: a connection can hand over its next operation while this
    /// one is being stored (several in flight, numbered in the order they were queued).
    public func enqueue(_ op: ClientOperation, by actor: Participant, to id: String) async throws -> SubmissionTicket {
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
    func commitQueued(in id: String) async {
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
    func commit(_ batch: [Submission], in id: String) async {
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
    func check(_ submission: Submission, in id: String) throws -> RoomState.Outcome {
        guard let settings = rooms[id]?.settings, let outcome = try rooms[id]?.state.validate(submission.operation, by: submission.actor, in: settings) else {
            throw RoomError(.notFound, "no room \(id.prefix(64))")
        }
        return outcome
    }

    /// Stored operations go to the room's subscribers, all of a batch in one post each; a
    /// snapshot follows when one is due.
    func published(_ updates: [RoomUpdate], in id: String) {
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

    func validate(_ op: ClientOperation, by actor: Participant, in id: String) async throws -> RoomState.Outcome {
        let room = try await load(id)
        return try room.state.validate(op, by: actor, in: room.settings)
    }
}
