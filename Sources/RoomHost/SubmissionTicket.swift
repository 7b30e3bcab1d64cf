import Foundation
import Rooms

/// An operation handed to a room: its outcome once its batch is stored (or why not).
public final class SubmissionTicket: @unchecked Sendable {
    private let lock = NSLock()
    private var result: Result<RoomState.Outcome, any Error>?
    private var waiter: CheckedContinuation<RoomState.Outcome, any Error>?

    func resolve(_ outcome: Result<RoomState.Outcome, any Error>) {
        lock.lock()
        guard result == nil else { lock.unlock(); return }
        result = outcome
        let waiter = self.waiter
        self.waiter = nil
        lock.unlock()
        waiter?.resume(with: outcome)
    }

    /// Waits for the outcome: accepted and stored, a duplicate, or the refusal thrown.
    public func outcome() async throws -> RoomState.Outcome {
        try await withCheckedThrowingContinuation { continuation in
            lock.lock()
            if let result {
                lock.unlock()
                continuation.resume(with: result)
            } else {
                waiter = continuation
                lock.unlock()
            }
        }
    }
}
