import Foundation
import Testing
@testable import MoleculeLibrary

/// The order in which waiting jobs get a thread: the lightest first, unless one has waited too long.
@Suite("Work limiter")
struct WorkLimiterTests {
    actor Order {
        var names: [String] = []
        func add(_ name: String) { names.append(name) }
    }

    /// Holds the limiter's one slot until `release` is resumed, then queues `jobs` (name, cost) in
    /// that order, 20 ms apart, and returns the order in which they ran.
    func runOrder(_ limiter: WorkLimiter, _ jobs: [(String, Int)], pauseBeforeRelease: Duration = .zero) async throws -> [String] {
        let order = Order()
        let (gate, open) = AsyncStream<Void>.makeStream()
        let holder = Task { try await limiter.withSlot { for await _ in gate { break } } }
        try await Task.sleep(for: .milliseconds(50))
        var tasks: [Task<Void, any Error>] = []
        for (name, cost) in jobs {
            tasks.append(Task { try await limiter.withSlot(cost: cost) { await order.add(name) } })
            try await Task.sleep(for: .milliseconds(20))
        }
        try await Task.sleep(for: pauseBeforeRelease)
        open.yield()
        open.finish()
        try await holder.value
        for t in tasks { try await t.value }
        return await order.names
    }

    @Test("waiting jobs run lightest first (a small molecule is not kept behind huge ones)")
    func lightestFirst() async throws {
        let limiter = WorkLimiter(width: 1)
        let order = try await runOrder(limiter, [("huge", 1_000_000), ("1AKE", 3_300), ("large", 500_000)])
        #expect(order == ["1AKE", "large", "huge"])
    }

    @Test("a job that has waited longer than the longest wait goes first whatever its cost")
    func noneWaitsForEver() async throws {
        let limiter = WorkLimiter(width: 1, longestWait: .milliseconds(100))
        let order = try await runOrder(limiter, [("huge", 1_000_000), ("small", 10)], pauseBeforeRelease: .milliseconds(200))
        #expect(order == ["huge", "small"])
    }

    @Test("heavy jobs leave one thread free: a light job starts at once beside them")
    func oneThreadForOrdinaryMolecules() async throws {
        let limiter = WorkLimiter(width: 2, heavyCost: 100)
        let order = Order()
        let (gate, open) = AsyncStream<Void>.makeStream()
        let holder = Task { try await limiter.withSlot(cost: 1_000) { for await _ in gate { break } } }
        try await Task.sleep(for: .milliseconds(50))
        let heavy = Task { try await limiter.withSlot(cost: 500) { await order.add("heavy") } }
        try await Task.sleep(for: .milliseconds(50))
        try await limiter.withSlot(cost: 10) { await order.add("light") }
        #expect(await order.names == ["light"])  // the heavy one still waits for the holder's thread
        open.yield()
        open.finish()
        try await holder.value
        try await heavy.value
        #expect(await order.names == ["light", "heavy"])
    }
}
