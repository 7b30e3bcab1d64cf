import MoleculeLibrary
import NIOConcurrencyHelpers

/// The one rate-limiting algorithm of the server: a token bucket holding at most `burst` tokens,
/// refilled at `rate` tokens a second. A socket keeps one as its own (messages a second); a
/// `RateLimiter` keeps one per key.
struct TokenBucket: Sendable {
    let rate: Double
    let burst: Double
    private(set) var tokens: Double
    private var last: ContinuousClock.Instant

    init(rate: Double, burst: Double, now: ContinuousClock.Instant = .now) {
        self.rate = rate; self.burst = burst; tokens = burst; last = now
    }

    /// Takes `cost` tokens, or leaves them and answers the seconds until they will be there.
    mutating func take(_ cost: Double = 1, now: ContinuousClock.Instant = .now) -> Double? {
        refill(now)
        guard tokens >= cost else { return (cost - tokens) / rate }
        tokens -= cost
        return nil
    }

    /// Puts back `cost` tokens taken for work that then never started (at most a full bucket).
    mutating func giveBack(_ cost: Double) { tokens = min(burst, tokens + cost) }

    /// Whether the bucket would be full at `now`: it then says nothing a new one would not.
    func isFull(at now: ContinuousClock.Instant) -> Bool { tokens + rate * ((now - last) / .seconds(1)) >= burst }

    private mutating func refill(_ now: ContinuousClock.Instant) {
        tokens = min(burst, tokens + rate * ((now - last) / .seconds(1)))
        last = now
    }
}

/// A token bucket per key (an account, a client, an address): `burst` at once, then `burst` more
/// over each `period`. For uploads per hour, password hashes per minute, the points of room
/// operations sent over HTTP, archive opens and searches, invitations.
final class RateLimiter: Sendable {
    let burst: Double
    let rate: Double
    private let buckets = NIOLockedValueBox([String: TokenBucket]())

    init(burst: Int, per period: Double) {
        self.burst = Double(max(burst, 1)); rate = self.burst / period
    }

    /// Takes `cost` tokens for `key` (at most the burst), or throws `tooManyRequests` saying when
    /// they will be there ("too many `what` from `who`").
    func take(_ key: String, cost: Double = 1, what: String, from who: String = "you") throws {
        let now = ContinuousClock.now
        let cost = min(max(cost, 0), burst)
        let wait: Double? = buckets.withLockedValue { b in
            var bucket = b[key] ?? TokenBucket(rate: rate, burst: burst, now: now)
            let wait = bucket.take(cost, now: now)
            b[key] = bucket
            // Full buckets carry no information: drop them now and then so the table stays small.
            if b.count > 50_000 { b = b.filter { !$0.value.isFull(at: now) } }
            return wait
        }
        if let wait {
            let seconds = Int(wait.rounded(.up))
            throw LibraryError.tooManyRequests("too many \(what) from \(who); try again in \(seconds) s", retryAfter: seconds)
        }
    }

    /// Gives back `cost` tokens taken for work that then never started (the server was too busy).
    func giveBack(_ key: String, cost: Double = 1) {
        buckets.withLockedValue { b in b[key]?.giveBack(cost) }
    }

    /// One take from each limit in turn, or from none: what the first ones took is given back when
    /// a later one refuses (a client's and its address's budgets; an hour's and a day's).
    static func take(all limits: [(limiter: RateLimiter, key: String, what: String, who: String)], cost: Double = 1) throws {
        for (k, limit) in limits.enumerated() {
            do {
                try limit.limiter.take(limit.key, cost: cost, what: limit.what, from: limit.who)
            } catch {
                for taken in limits[..<k] { taken.limiter.giveBack(taken.key, cost: cost) }
                throw error
            }
        }
    }
}
