import Foundation

/// A wait that ran out: the test fails with what it waited for.
public struct TimedOut: Error, CustomStringConvertible {
    public let description: String
    public init(_ what: String, after limit: Duration) { description = "timed out after \(limit) waiting for \(what)" }
}

/// `body`'s result, or `TimedOut` once `limit` has passed (then `body` is cancelled and not waited
/// for: a wait that never ends, such as a notification that was lost, fails the test instead of
/// hanging the run).
public func within<T: Sendable>(_ limit: Duration, _ what: String, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    let outcome = Outcome<T>()
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            outcome.start(continuation)
            let work = Task {
                do { outcome.finish(.success(try await body())) } catch { outcome.finish(.failure(error)) }
            }
            outcome.onCancel = { work.cancel() }
            Task {
                try? await Task.sleep(for: limit)
                if outcome.finish(.failure(TimedOut(what, after: limit))) { work.cancel() }
            }
        }
    } onCancel: {
        outcome.finish(.failure(CancellationError()))
        outcome.cancelWork()
    }
}

/// Waits until `condition` holds, asking again every `interval`; `TimedOut` after `limit`. For
/// what a test can observe but not be told of (a snapshot saved in the background, a listener in
/// place): the wait ends as soon as the condition holds, the limit only bounds a broken feature.
public func eventually(_ what: String, within limit: Duration = .seconds(30), every interval: Duration = .milliseconds(10),
                       _ condition: @escaping @Sendable () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now + limit
    while true {
        if try await condition() { return }
        if ContinuousClock.now >= deadline { throw TimedOut(what, after: limit) }
        try await Task.sleep(for: interval)
    }
}

/// Returns once the wall clock (`Date()`, which stores stamp uses with) reads later than when this
/// was called: whatever is stamped after this returns is stamped later than anything before.
public func wallClockTicks() async throws {
    let start = Date().timeIntervalSince1970
    try await eventually("the wall clock to move past \(start)", within: .seconds(5), every: .microseconds(100)) {
        Date().timeIntervalSince1970 > start
    }
}

/// The first of a body's result, a timeout or a cancellation, once.
private final class Outcome<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<T, any Error>?
    private var early: Result<T, any Error>?
    private var done = false
    private var cancelWorkAction: (@Sendable () -> Void)?

    var onCancel: (@Sendable () -> Void)? {
        get { lock.withLock { cancelWorkAction } }
        set { lock.withLock { cancelWorkAction = newValue } }
    }

    func start(_ c: CheckedContinuation<T, any Error>) {
        lock.lock()
        if let early {
            lock.unlock()
            c.resume(with: early)
            return
        }
        continuation = c
        lock.unlock()
    }

    /// True when this result was the first.
    @discardableResult
    func finish(_ result: Result<T, any Error>) -> Bool {
        lock.lock()
        guard !done else { lock.unlock(); return false }
        done = true
        if let c = continuation {
            continuation = nil
            lock.unlock()
            c.resume(with: result)
        } else {
            early = result
            lock.unlock()
        }
        return true
    }

    func cancelWork() { onCancel?() }
}
