import Foundation

/// Slows sign-in for an e-mail from one address after repeated failures there: 5 in 15 minutes,
/// then each attempt waits 1, 2, 4, at most 8 seconds, and only one attempt at a time is taken
/// (others get 429), so guesses cannot be sent in parallel to get around the wait. Keyed by e-mail
/// and address, so that nobody can lock an account's owner out by failing on purpose elsewhere
/// (guessing from many addresses is held by each one's wait and the password hashes per address).
actor SignInThrottle {
    private var failures: [String: [Date]] = [:]
    private var inFlight: Set<String> = []
    static let window: TimeInterval = 15 * 60
    static let free = 5

    func begin(_ key: String) async throws {
        let recent = prune(key)
        guard recent >= Self.free else { return }
        guard inFlight.insert(key).inserted else {
            throw AccountError(.tooManyRequests, "too many failed sign-ins for this e-mail from your address; wait a few seconds and try again",
                           retryAfter: 8)
        }
        try? await Task.sleep(for: .seconds(min(8.0, pow(2.0, Double(recent - Self.free)))))
    }

    func end(_ key: String, succeeded: Bool, counts: Bool = true) {
        inFlight.remove(key)
        guard counts else { return }
        if succeeded { failures[key] = nil; return }
        failures[key, default: []].append(Date())
        if failures.count > 100_000 { failures = failures.filter { $0.value.contains { -$0.timeIntervalSinceNow < Self.window } } }
    }

    private func prune(_ key: String) -> Int {
        let kept = (failures[key] ?? []).filter { -$0.timeIntervalSinceNow < Self.window }
        failures[key] = kept.isEmpty ? nil : kept
        return kept.count
    }
}
