import Foundation
import Rooms

/// Where a room's accepted operations wait for one subscriber (a live connection). The reader
/// takes everything waiting at once, so a connection that falls behind catches up in a few large
/// writes instead of many small ones. Holds at most `capacity` operations: beyond that all it holds
/// go at once (dropping the oldest one by one cost a reader that stopped reading, and the room,
/// the whole mailbox per operation), and the reader, seeing the gap in the sequence numbers, reads
/// a short one from the log or, far behind, lets its client come back for the room as it is now.
public final class RoomMailbox: AsyncSequence, @unchecked Sendable {
    public typealias Element = RoomUpdate
    private let lock = NSLock()
    private var pending: [RoomUpdate] = []
    private var waiter: CheckedContinuation<[RoomUpdate]?, Never>?
    private var finished = false
    private var onFinish: (@Sendable () -> Void)?
    let capacity: Int

    init(capacity: Int = 10_000, onFinish: @escaping @Sendable () -> Void) {
        self.capacity = capacity
        self.onFinish = onFinish
    }

    /// Posts a batch of operations in order: one wake-up of the reader for all of them.
    func post(_ updates: [RoomUpdate]) {
        lock.lock()
        guard !finished, !updates.isEmpty else { lock.unlock(); return }
        if let waiter {
            self.waiter = nil
            lock.unlock()
            waiter.resume(returning: updates)
            return
        }
        pending += updates
        if pending.count > capacity { pending.removeAll() }
        lock.unlock()
    }

    /// Ends the mailbox: the reader gets what is waiting, then nil.
    public func finish() {
        lock.lock()
        finished = true
        let waiter = self.waiter, done = onFinish
        self.waiter = nil
        onFinish = nil
        lock.unlock()
        waiter?.resume(returning: nil)
        done?()
    }

    /// Everything waiting, in order (waiting for at least one); nil once finished or when the
    /// reading task is cancelled.
    public func nextBatch() async -> [RoomUpdate]? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<[RoomUpdate]?, Never>) in
                lock.lock()
                if !pending.isEmpty {
                    let batch = pending
                    pending = []
                    lock.unlock()
                    continuation.resume(returning: batch)
                } else if finished || Task.isCancelled {
                    lock.unlock()
                    continuation.resume(returning: nil)
                } else {
                    waiter = continuation
                    lock.unlock()
                }
            }
        } onCancel: {
            finish()
        }
    }

    /// Everything waiting now, without waiting; nil when nothing is.
    public func nextBatchIfAny() -> [RoomUpdate]? {
        lock.lock()
        defer { lock.unlock() }
        guard !pending.isEmpty else { return nil }
        let batch = pending
        pending = []
        return batch
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        let mailbox: RoomMailbox
        var buffered: ArraySlice<RoomUpdate> = []
        public mutating func next() async -> RoomUpdate? {
            if buffered.isEmpty {
                guard let batch = await mailbox.nextBatch() else { return nil }
                buffered = batch[...]
            }
            return buffered.popFirst()
        }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(mailbox: self) }
}

/// An accepted operation as subscribers receive it, with the JSON it was stored as when at hand and
/// the live socket's `op` message made from it once, so that a broadcast to many connections
/// encodes it once.
public struct RoomUpdate: Sendable {
    public let operation: LoggedOperation
    public let storedJSON: String?
    /// `{"type":"op", …the stored JSON's fields}`: what every subscriber sends as it is.
    public let message: String?
    public var sequence: UInt64 { operation.sequence }

    public init(operation: LoggedOperation, storedJSON: String?) {
        self.operation = operation
        self.storedJSON = storedJSON
        message = storedJSON.flatMap { $0.hasPrefix("{") ? "{\"type\":\"op\"," + $0.dropFirst() : nil }
    }
}

/// A live view of a room: its state and settings when the view began, the stored operations a
/// resuming client missed, and the mailbox of operations accepted from then on.
public struct RoomSubscription: Sendable {
    public let snapshot: RoomState
    public let settings: RoomSettings
    public let backlog: [LoggedOperation]
    public let updates: RoomMailbox
}
