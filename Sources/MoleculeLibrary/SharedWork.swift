import NIOConcurrencyHelpers

/// What new work must pass before it starts: a client's fair share of the conversions, or its
/// budget of archive downloads. Callers that join work already under way pass nothing: they cost
/// the server nothing more.
public protocol Admission: Sendable {
    func admit<T: Sendable>(_ work: @Sendable () async throws -> T) async throws -> T
}

/// Lets all work start (the command line, tests, work the server bounds otherwise).
public struct AdmitAll: Admission {
    public init() {}
    public func admit<T: Sendable>(_ work: @Sendable () async throws -> T) async throws -> T { try await work() }
}

/// One piece of work per key at a time: callers asking for the same key while it runs share its
/// result (one download for concurrent fetches of the same entry, one conversion per model) and
/// hear its progress. Only the caller that starts the work passes its `admission`; a caller that
/// leaves does not cancel the work for the others, and only when every caller has left (their
/// clients went away) is the work cancelled.
public actor SharedWork<Value: Sendable> {
    private struct Entry {
        var task: Task<Value, any Error>
        var callers: Set<UInt64>
        let listeners: ProgressListeners
    }
    private var inFlight: [String: Entry] = [:]
    private var nextCaller: UInt64 = 0

    public init() {}

    /// Whether work for `key` is under way now.
    public func isRunning(_ key: String) -> Bool { inFlight[key] != nil }

    public func run(_ key: String, _ work: @escaping @Sendable () async throws -> Value) async throws -> Value {
        try await run(key, admission: AdmitAll(), progress: nil) { _ in try await work() }
    }

    /// The work's value for `key`: joined when it runs already, else started once `admission`
    /// lets it. `progress` hears the work's progress (the last step at once when joining).
    public func run(_ key: String, admission: some Admission, progress: ProgressHandler?,
                    _ work: @escaping @Sendable (_ progress: @escaping ProgressHandler) async throws -> Value) async throws -> Value {
        nextCaller += 1
        let caller = nextCaller
        let task: Task<Value, any Error>
        let listeners: ProgressListeners
        if let entry = inFlight[key] {
            task = entry.task
            listeners = entry.listeners
            inFlight[key]?.callers.insert(caller)
        } else {
            listeners = ProgressListeners()
            task = Task { try await admission.admit { try await work(listeners.send) } }
            inFlight[key] = Entry(task: task, callers: [caller], listeners: listeners)
        }
        if let progress { listeners.add(caller, progress) }
        defer {
            listeners.remove(caller)
            leave(key, caller, task: task, cancel: false)
        }
        return try await withTaskCancellationHandler {
            try await task.value
        } onCancel: {
            Task { await self.leave(key, caller, task: task, cancel: true) }
        }
    }

    private func leave(_ key: String, _ caller: UInt64, task: Task<Value, any Error>, cancel: Bool) {
        guard var entry = inFlight[key], entry.task == task, entry.callers.remove(caller) != nil else { return }
        if entry.callers.isEmpty {
            inFlight[key] = nil
            if cancel { task.cancel() }
        } else {
            inFlight[key] = entry
        }
    }
}

/// The callers listening to one piece of shared work; a caller that joins late hears the last step.
final class ProgressListeners: Sendable {
    private let state = NIOLockedValueBox((handlers: [UInt64: ProgressHandler](), last: WorkProgress?.none))

    func add(_ caller: UInt64, _ handler: @escaping ProgressHandler) {
        let last = state.withLockedValue { s in s.handlers[caller] = handler; return s.last }
        if let last { handler(last) }
    }

    func remove(_ caller: UInt64) { _ = state.withLockedValue { $0.handlers.removeValue(forKey: caller) } }

    @Sendable func send(_ step: WorkProgress) {
        let handlers = state.withLockedValue { s in s.last = step; return Array(s.handlers.values) }
        for handler in handlers { handler(step) }
    }
}
