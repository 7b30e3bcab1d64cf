import Foundation
import MoleculeLibrary
import NIOConcurrencyHelpers

/// A token bucket per key (an account, a client address): `burst` at once, then one every
/// `interval` seconds. For uploads per hour and password hashes (bcrypt) per minute.
final class RateLimiter: Sendable {
    let burst: Double
    let interval: Double
    private let buckets = NIOLockedValueBox([String: (tokens: Double, at: Date)]())

    init(burst: Int, per period: TimeInterval) {
        self.burst = Double(max(burst, 1)); interval = period / Double(max(burst, 1))
    }

    /// Takes a token for `key`, or throws `tooManyRequests` saying when the next one comes.
    func take(_ key: String, what: String) throws {
        let now = Date()
        let wait: Double? = buckets.withLockedValue { b in
            var (tokens, at) = b[key] ?? (burst, now)
            tokens = min(burst, tokens + now.timeIntervalSince(at) / interval)
            guard tokens >= 1 else {
                b[key] = (tokens, now)
                return (1 - tokens) * interval
            }
            b[key] = (tokens - 1, now)
            // Full buckets carry no information: drop them now and then so the table stays small.
            if b.count > 50_000 { b = b.filter { $0.value.tokens + now.timeIntervalSince($0.value.at) / interval < burst } }
            return nil
        }
        if let wait {
            throw LibraryError.tooManyRequests("too many \(what) from you; try again in \(Int(wait.rounded(.up))) s", retryAfter: Int(wait.rounded(.up)))
        }
    }
}

/// How many expensive requests (conversions) each client has waiting or running: a client over
/// its share gets `429` and the others keep their turn.
final class FairShare: Sendable {
    let perClient: Int
    private let counts = NIOLockedValueBox([String: Int]())

    init(perClient: Int) { self.perClient = perClient }

    func run<T: Sendable>(_ client: String, _ work: () async throws -> T) async throws -> T {
        let admitted = counts.withLockedValue { c -> Bool in
            guard c[client, default: 0] < perClient else { return false }
            c[client, default: 0] += 1
            return true
        }
        guard admitted else {
            throw LibraryError.tooManyRequests("you have \(perClient) models being made already; wait for them first", retryAfter: 5)
        }
        defer { counts.withLockedValue { c in c[client] = c[client].flatMap { $0 > 1 ? $0 - 1 : nil } } }
        return try await work()
    }
}
