import Foundation
import MoleculeLibrary
@testable import ProteinARServer
import Testing

/// One client's share of the conversions (docs/security.md): a few at once, a few more waiting
/// their own turn, the rest refused; other clients unaffected; a waiter whose client left gives
/// its place up.
@Suite("Fair share of conversions")
struct FairShareTests {
    /// Conversions that hold their place until let go.
    actor Gate {
        private(set) var started = 0
        private var held: [CheckedContinuation<Void, Never>] = []
        func enter() async { started += 1; await withCheckedContinuation { held.append($0) } }
        func letOneGo() -> Bool { guard !held.isEmpty else { return false }; held.removeFirst().resume(); return true }
    }

    static func until(_ condition: @Sendable () async -> Bool) async throws {
        for _ in 0..<400 where !(await condition()) { try await Task.sleep(for: .milliseconds(5)) }
        #expect(await condition())
    }

    @Test("4 run at once, 8 wait their turn, the 13th gets 429; another client goes straight in; a cancelled waiter leaves the line")
    func share() async throws {
        let share = FairShare(perClient: 4)
        let a = Client(key: "a", address: "10.0.0.1"), b = Client(key: "b", address: "10.0.0.1")
        let gate = Gate()
        var jobs: [Task<Void, any Error>] = []
        for _ in 0..<12 {
            jobs.append(Task { try await share.run(a) { await gate.enter() } })
            let count = jobs.count
            try await Self.until { share.load(of: a).running + share.load(of: a).waiting == count }
        }
        #expect(await gate.started == 4)
        #expect(share.load(of: a) == (running: 4, waiting: 8))
        await #expect(throws: LibraryError.self) { try await share.run(a) {} }
        #expect(try await share.run(b) { 42 } == 42)

        // The last waiter's client leaves: its place is free for another request.
        jobs[11].cancel()
        await #expect(throws: CancellationError.self) { try await jobs[11].value }
        #expect(share.load(of: a) == (running: 4, waiting: 7))
        jobs[11] = Task { try await share.run(a) { await gate.enter() } }
        try await Self.until { share.load(of: a).waiting == 8 }

        // Each one that ends lets the client's next waiter start, in order, until all have run.
        #expect(await gate.letOneGo())
        try await Self.until { await gate.started == 5 }
        while await gate.started < 12 || share.load(of: a).running > 0 {
            if !(await gate.letOneGo()) { try await Task.sleep(for: .milliseconds(5)) }
        }
        for job in jobs { try await job.value }
        #expect(await gate.started == 12)
        #expect(share.load(of: a) == (running: 0, waiting: 0))
    }

    @Test("one address's clients together stop at its ceiling (429), other addresses are unaffected, and places come back as work ends")
    func addressCeiling() async throws {
        let share = FairShare(perClient: 2, perAddress: 5)
        let gate = Gate()
        var jobs: [Task<Void, any Error>] = []
        // Five phones behind one address, one conversion each: all in.
        for phone in 0..<5 {
            let client = Client(key: "anonymous:\(phone)", address: "192.0.2.7")
            jobs.append(Task { try await share.run(client) { await gate.enter() } })
        }
        try await Self.until { await gate.started == 5 }
        #expect(share.load(ofAddress: "192.0.2.7") == 5)
        // A sixth, with a fresh client id of its own, meets the address's ceiling.
        let error = await #expect(throws: LibraryError.self) {
            try await share.run(Client(key: "anonymous:new", address: "192.0.2.7")) {}
        }
        if case .tooManyRequests(let message, _)? = error { #expect(message.contains("your address")) } else { Issue.record("expected 429, got \(String(describing: error))") }
        #expect(try await share.run(Client(key: "anonymous:elsewhere", address: "198.51.100.1")) { 7 } == 7)
        #expect(await gate.letOneGo())
        try await Self.until { share.load(ofAddress: "192.0.2.7") == 4 }
        #expect(try await share.run(Client(key: "anonymous:new", address: "192.0.2.7")) { 8 } == 8)
        while await gate.letOneGo() {}
        for job in jobs { try await job.value }
        #expect(share.load(ofAddress: "192.0.2.7") == 0)
    }
}
