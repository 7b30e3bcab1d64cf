import Foundation

/// Runs CPU-heavy work (reading, meshing, writing) on a few threads outside Swift's cooperative
/// pool, at most `width` at a time, the rest waiting. The server's request handlers stay
/// responsive while conversions run, and memory stays flat however many are asked for.
///
/// Who goes next: of the jobs waiting, the one of least `cost` (a model's atoms), so a small
/// molecule is not kept behind a stack of huge ones; but a job that has waited `longestWait` goes
/// before any other, so none waits for ever. Heavy jobs (`cost` ≥ `heavyCost`) hold at most
/// `width − 1` threads, so one is always there for ordinary molecules: a stack of million-atom
/// models delays another visitor's protein by at most one small conversion, not by a huge one.
///
/// At most `maxWaiting` jobs wait: beyond that a job is refused at once (`LibraryError.busy`), so
/// a flood of requests cannot build a queue of hours. A job cancelled while it waits leaves the
/// queue without running.
public actor WorkLimiter {
    public let width: Int
    public let maxWaiting: Int
    /// What waits, for the busy message ("conversions", "archive downloads").
    public let what: String
    /// After this long waiting, a job goes next whatever its cost.
    public let longestWait: Duration
    /// From this cost on a job is heavy, and heavy jobs leave one thread free.
    public let heavyCost: Int
    private var running = 0, runningHeavy = 0
    private struct Waiter {
        let id: UInt64
        let cost: Int
        let since: ContinuousClock.Instant
        let continuation: CheckedContinuation<Void, any Error>
    }
    /// In arrival order.
    private var waiting: [Waiter] = []
    private var nextID: UInt64 = 0

    public init(width: Int = max(1, ProcessInfo.processInfo.activeProcessorCount), maxWaiting: Int = .max, what: String = "conversions",
                longestWait: Duration = .seconds(10), heavyCost: Int = 100_000) {
        self.width = max(width, 1); self.maxWaiting = maxWaiting; self.what = what
        self.longestWait = longestWait; self.heavyCost = heavyCost
    }

    public func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withSlot { try await Self.offload(work) }
    }

    /// Runs `body` once a slot is free (for work that also awaits, such as reading its input).
    /// `cost`: how heavy the job is (a model's atoms; 0 for small work), which orders the waiting.
    public func withSlot<T: Sendable>(cost: Int = 0, _ body: @Sendable () async throws -> T) async throws -> T {
        try await acquire(cost: cost)
        defer { release(cost: cost) }
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

    private func mayStart(_ cost: Int) -> Bool {
        running < width && (cost < heavyCost || runningHeavy < max(1, width - 1))
    }

    private func start(_ cost: Int) {
        running += 1
        if cost >= heavyCost { runningHeavy += 1 }
    }

    private func acquire(cost: Int) async throws {
        if waiting.isEmpty, mayStart(cost) {
            start(cost)
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
                startWaiting()  // a light job may start beside heavy ones even when others wait
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

    private func release(cost: Int) {
        running -= 1
        if cost >= heavyCost { runningHeavy -= 1 }
        startWaiting()
    }

    /// Starts waiting jobs while threads are free: the oldest when it has waited too long, else
    /// the lightest, of those that may start.
    private func startWaiting() {
        while running < width, !waiting.isEmpty {
            var next: Int?
            let now = ContinuousClock.now
            for k in waiting.indices where mayStart(waiting[k].cost) {
                if now - waiting[k].since >= longestWait { next = k; break }
                if next == nil || waiting[k].cost < waiting[next ?? k].cost { next = k }
            }
            guard let next else { return }
            let job = waiting.remove(at: next)
            start(job.cost)
            job.continuation.resume()
        }
    }
}
