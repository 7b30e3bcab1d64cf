import Foundation
import MoleculeLibrary
import NIOConcurrencyHelpers

/// A token bucket per key (an account, a client address): `burst` at once, then one every
/// `interval` seconds. For uploads per hour, password hashes (bcrypt) per minute, and the points
/// of room operations sent over HTTP.
final class RateLimiter: Sendable {
    let burst: Double
    let interval: Double
    private let buckets = NIOLockedValueBox([String: (tokens: Double, at: Date)]())

    init(burst: Int, per period: TimeInterval) {
        self.burst = Double(max(burst, 1)); interval = period / Double(max(burst, 1))
    }

    /// Takes `cost` tokens for `key` (at most the burst), or throws `tooManyRequests` saying when
    /// they will be there.
    func take(_ key: String, cost: Double = 1, what: String) throws {
        let now = Date()
        let cost = min(max(cost, 0), burst)
        let wait: Double? = buckets.withLockedValue { b in
            var (tokens, at) = b[key] ?? (burst, now)
            tokens = min(burst, tokens + now.timeIntervalSince(at) / interval)
            guard tokens >= cost else {
                b[key] = (tokens, now)
                return (cost - tokens) * interval
            }
            b[key] = (tokens - cost, now)
            // Full buckets carry no information: drop them now and then so the table stays small.
            if b.count > 50_000 { b = b.filter { $0.value.tokens + now.timeIntervalSince($0.value.at) / interval < burst } }
            return nil
        }
        if let wait {
            throw LibraryError.tooManyRequests("too many \(what) from you; try again in \(Int(wait.rounded(.up))) s", retryAfter: Int(wait.rounded(.up)))
        }
    }
}

/// Each client's share of the conversions: `perClient` at once (by account, else by address); the
/// client's further requests wait for one of its own to finish, at most `waitingPerClient` of
/// them, and beyond that get `429`. A page that asks for a dozen thumbnails at once (a browser
/// opens six connections) gets them all, one share at a time, while one client that asks for
/// hundreds cannot fill the server's queue ahead of everyone else.
final class FairShare: Sendable {
    let perClient: Int
    let waitingPerClient: Int
    private struct Client {
        var running = 0
        var waiting: [(id: UInt64, turn: CheckedContinuation<Void, any Error>)] = []
    }
    private let state = NIOLockedValueBox((clients: [String: Client](), nextID: UInt64(0)))

    init(perClient: Int, waitingPerClient: Int? = nil) {
        self.perClient = max(perClient, 1)
        self.waitingPerClient = max(waitingPerClient ?? 2 * perClient, 0)
    }

    func run<T: Sendable>(_ client: String, _ work: () async throws -> T) async throws -> T {
        try await turn(for: client)
        defer { finished(client) }
        return try await work()
    }

    /// Returns once the client may start one more; a waiter that is cancelled (its client left)
    /// leaves the line.
    private func turn(for client: String) async throws {
        let id = state.withLockedValue { s in s.nextID += 1; return s.nextID }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (turn: CheckedContinuation<Void, any Error>) in
                let outcome: Result<Void, any Error>? = state.withLockedValue { s in
                    var c = s.clients[client] ?? Client()
                    if c.running < perClient {
                        c.running += 1
                        s.clients[client] = c
                        return .success(())
                    }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    guard c.waiting.count < waitingPerClient else {
                        return .failure(LibraryError.tooManyRequests(
                            "you have \(perClient) models being made and \(waitingPerClient) waiting already; wait for them first", retryAfter: 5))
                    }
                    c.waiting.append((id, turn))
                    s.clients[client] = c
                    return nil
                }
                if let outcome { turn.resume(with: outcome) }
            }
        } onCancel: {
            let waiter = state.withLockedValue { s -> CheckedContinuation<Void, any Error>? in
                guard let index = s.clients[client]?.waiting.firstIndex(where: { $0.id == id }) else { return nil }
                return s.clients[client]?.waiting.remove(at: index).turn
            }
            waiter?.resume(throwing: CancellationError())
        }
    }

    /// The client's conversions running and waiting now.
    func load(of client: String) -> (running: Int, waiting: Int) {
        state.withLockedValue { s in (s.clients[client]?.running ?? 0, s.clients[client]?.waiting.count ?? 0) }
    }

    /// One of the client's conversions ended: its place goes to the client's next waiter.
    private func finished(_ client: String) {
        let next = state.withLockedValue { s -> CheckedContinuation<Void, any Error>? in
            guard var c = s.clients[client] else { return nil }
            if !c.waiting.isEmpty {
                let next = c.waiting.removeFirst().turn
                s.clients[client] = c
                return next
            }
            c.running -= 1
            s.clients[client] = c.running > 0 ? c : nil
            return nil
        }
        next?.resume()
    }
}
