import Foundation

/// Runs CPU-heavy work (reading, meshing, writing) on a few threads outside Swift's cooperative
/// pool, at most `width` at a time, the rest waiting in order. The server's request handlers
/// stay responsive while conversions run, and memory stays flat however many are asked for.
public actor WorkLimiter {
    public let width: Int
    private var running = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    public init(width: Int = max(1, ProcessInfo.processInfo.activeProcessorCount)) { self.width = width }

    public func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withSlot { try await Self.offload(work) }
    }

    /// Runs `body` once a slot is free (for work that also awaits, such as reading its input).
    public func withSlot<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        await acquire()
        defer { release() }
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

    private func acquire() async {
        if running < width {
            running += 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    private func release() {
        if waiting.isEmpty {
            running -= 1
        } else {
            waiting.removeFirst().resume()  // the slot passes straight to the next job
        }
    }
}

/// One piece of work per key at a time: callers asking for the same key while it runs share its
/// result (one download for concurrent fetches of the same entry, one conversion per model).
public actor SharedWork<Value: Sendable> {
    private var inFlight: [String: Task<Value, any Error>] = [:]

    public init() {}

    public func run(_ key: String, _ work: @escaping @Sendable () async throws -> Value) async throws -> Value {
        if let task = inFlight[key] { return try await task.value }
        let task = Task { try await work() }
        inFlight[key] = task
        defer { inFlight[key] = nil }
        return try await task.value
    }
}
