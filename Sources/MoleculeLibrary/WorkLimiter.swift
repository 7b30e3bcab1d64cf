import Foundation

/// Runs CPU-heavy work (reading, meshing, writing) on a few threads outside Swift's cooperative
/// pool, at most `width` at a time, the rest waiting. Of the jobs waiting, the one of least
/// `cost` (a model's atoms) goes first, so a small molecule is not kept behind a stack of huge
/// ones; a job that has waited `longestWait` goes before any other, so none waits for ever. The server's request handlers
/// stay responsive while conversions run, and memory stays flat however many are asked for.
/// At most `maxWaiting` jobs wait: beyond that a job is refused at once (`LibraryError.busy`), so
/// a flood of requests cannot build a queue of hours. A job cancelled while it waits leaves the
/// queue without running.
public actor WorkLimiter {
    public let width: Int
    public let maxWaiting: Int
    /// What waits, for the busy message ("conversions", "archive downloads").
    public let what: String
    private var running = 0
    private struct Waiter {
        let id: UInt64
        let cost: Int
        let since: ContinuousClock.Instant
        let continuation: CheckedContinuation<Void, any Error>
    }
    /// In arrival order.
    private var waiting: [Waiter] = []
    private var nextID: UInt64 = 0
    /// After this long waiting, a job goes next whatever its cost.
    public let longestWait: Duration

    public init(width: Int = max(1, ProcessInfo.processInfo.activeProcessorCount), maxWaiting: Int = .max, what: String = "conversions",
                longestWait: Duration = .seconds(10)) {
        self.width = max(width, 1); self.maxWaiting = maxWaiting; self.what = what; self.longestWait = longestWait
    }

    public func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withSlot { try await Self.offload(work) }
    }

    /// Runs `body` once a slot is free (for work that also awaits, such as reading its input).
    /// `cost`: how heavy the job is (a model's atoms; 0 for small work), which orders the waiting.
    public func withSlot<T: Sendable>(cost: Int = 0, _ body: @Sendable () async throws -> T) async throws -> T {
        try await acquire(cost: cost)
        defer { release() }
        try Task.checkCancellation()
        return try await body()
    }

    /// Runs `work` on a Dispatch thread, off Swift's cooperative pool.
    public static func offload<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async {
                continuation.resume(with: Result { try work() })
            }
        }
    }

    /// Jobs waiting for a thread.
    public var queued: Int { waiting.count }

    /// About how long, in seconds, the queue takes to clear: for `Retry-After`.
    public var retryAfter: Int { max(1, min(120, 2 * (waiting.count + running) / max(width, 1))) }

    private func acquire(cost: Int) async throws {
        if running < width {
            running += 1
            return
        }
        guard waiting.count < maxWaiting else {
            throw LibraryError.busy("the server is busy: \(waiting.count) \(what) are waiting already; try again shortly",
                                    retryAfter: retryAfter)
        }
        nextID += 1
        let id = nextID
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation {
                waiting.append(Waiter(id: id, cost: cost, since: .now, continuation: $0))
            }
        } onCancel: {
            Task { await self.abandon(id) }
        }
    }

    /// A job cancelled while waiting leaves the queue (a job already given its slot keeps it).
    private func abandon(_ id: UInt64) {
        guard let index = waiting.firstIndex(where: { $0.id == id }) else { return }
        waiting.remove(at: index).continuation.resume(throwing: CancellationError())
    }

    private func release() {
        guard let oldest = waiting.first else {
            running -= 1
            return
        }
        // The slot passes straight to the next job: the oldest when it has waited too long, else the lightest.
        var next = 0
        if ContinuousClock.now - oldest.since < longestWait {
            for k in waiting.indices where waiting[k].cost < waiting[next].cost { next = k }
        }
        waiting.remove(at: next).continuation.resume()
    }
}
