import Foundation
import Hummingbird
import MoleculeLibrary
import NIOConcurrencyHelpers

/// Who asks, for fair shares: an account, an anonymous browser (its signed client id) or, for a
/// client that keeps no cookie, its address; and the address it asks from, for the address's ceiling.
struct Client: Sendable, Hashable {
    let key: String
    let address: String
}

/// Each client's share of the conversions: `perClient` at once; the client's further requests
/// wait for one of its own to finish, at most `waitingPerClient` of them, and beyond that get
/// `429`. All the clients of one address together have at most `perAddress` running or waiting
/// (a class of phones behind one school address is many people, but not the whole server). A
/// page that asks for a dozen thumbnails at once (a browser opens six connections) gets them all,
/// one share at a time, while one client that asks for hundreds cannot fill the server's queue
/// ahead of everyone else. Only new work takes a place: requests for a model already being made
/// join it (`SharedWork`) without one.
final class FairShare: Sendable {
    let perClient: Int
    let waitingPerClient: Int
    let perAddress: Int
    private struct Queue {
        var running = 0
        var waiting: [(id: UInt64, turn: CheckedContinuation<Void, any Error>)] = []
    }
    private struct State {
        var clients: [String: Queue] = [:]
        /// Running and waiting per address.
        var addresses: [String: Int] = [:]
        var nextID: UInt64 = 0
    }
    private let state = NIOLockedValueBox(State())

    init(perClient: Int, waitingPerClient: Int? = nil, perAddress: Int = .max) {
        self.perClient = max(perClient, 1)
        self.waitingPerClient = max(waitingPerClient ?? 2 * perClient, 0)
        self.perAddress = max(perAddress, 1)
    }

    func run<T: Sendable>(_ client: Client, _ work: () async throws -> T) async throws -> T {
        try await turn(for: client)
        defer { finished(client) }
        return try await work()
    }

    /// Returns once the client may start one more; a waiter that is cancelled (its client left)
    /// leaves the line.
    private func turn(for client: Client) async throws {
        let id = state.withLockedValue { s in s.nextID += 1; return s.nextID }
        let (perClient, waitingPerClient, perAddress) = (perClient, waitingPerClient, perAddress)
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (turn: CheckedContinuation<Void, any Error>) in
                let outcome: Result<Void, any Error>? = state.withLockedValue { s in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    let fromAddress = s.addresses[client.address, default: 0]
                    guard fromAddress < perAddress else {
                        return .failure(LibraryError.tooManyRequests(
                            "your address has \(perAddress) models being made or waiting already; try again shortly", retryAfter: 5))
                    }
                    var c = s.clients[client.key] ?? Queue()
                    if c.running < perClient {
                        c.running += 1
                        s.clients[client.key] = c
                        s.addresses[client.address] = fromAddress + 1
                        return .success(())
                    }
                    guard c.waiting.count < waitingPerClient else {
                        return .failure(LibraryError.tooManyRequests(
                            "you have \(perClient) models being made and \(waitingPerClient) waiting already; wait for them first", retryAfter: 5))
                    }
                    c.waiting.append((id, turn))
                    s.clients[client.key] = c
                    s.addresses[client.address] = fromAddress + 1
                    return nil
                }
                if let outcome { turn.resume(with: outcome) }
            }
        } onCancel: {
            let waiter = state.withLockedValue { s -> CheckedContinuation<Void, any Error>? in
                guard let index = s.clients[client.key]?.waiting.firstIndex(where: { $0.id == id }) else { return nil }
                Self.leaveAddress(&s, client.address)
                return s.clients[client.key]?.waiting.remove(at: index).turn
            }
            waiter?.resume(throwing: CancellationError())
        }
    }

    /// The client's conversions running and waiting now.
    func load(of client: Client) -> (running: Int, waiting: Int) {
        state.withLockedValue { s in (s.clients[client.key]?.running ?? 0, s.clients[client.key]?.waiting.count ?? 0) }
    }

    /// Running and waiting from one address now.
    func load(ofAddress address: String) -> Int { state.withLockedValue { $0.addresses[address, default: 0] } }

    /// One of the client's conversions ended: its place goes to the client's next waiter.
    private func finished(_ client: Client) {
        let next = state.withLockedValue { s -> CheckedContinuation<Void, any Error>? in
            Self.leaveAddress(&s, client.address)
            guard var c = s.clients[client.key] else { return nil }
            if !c.waiting.isEmpty {
                let next = c.waiting.removeFirst().turn
                s.clients[client.key] = c
                return next
            }
            c.running -= 1
            s.clients[client.key] = c.running > 0 ? c : nil
            return nil
        }
        next?.resume()
    }

    private static func leaveAddress(_ s: inout State, _ address: String) {
        let left = s.addresses[address, default: 1] - 1
        s.addresses[address] = left > 0 ? left : nil
    }

    /// The client's fair share as what new work must pass (`SharedWork`): requests that join work
    /// under way take no place.
    func admission(for client: Client) -> some Admission { ShareAdmission(share: self, client: client) }

    /// Costly work a request asks for (a conversion, a design, a room's model): started within the
    /// asking client's fair share, cancelled when its connection closes, its errors in HTTP words.
    func work<T: Sendable>(for request: Request, _ context: ServerContext,
                           _ body: @escaping @Sendable (any Admission) async throws -> T) async throws -> T {
        let admission = admission(for: try await APIRoutes.share(request, context))
        return try await call { try await whileConnected(context.channel) { try await body(admission) } }
    }
}

private struct ShareAdmission: Admission {
    let share: FairShare
    let client: Client
    func admit<T: Sendable>(_ work: @Sendable () async throws -> T) async throws -> T { try await share.run(client, work) }
}

/// A budget per minute for each client and, over all its clients, for each address: what
/// archive opens and searches each spend one of.
struct MinuteBudget: Sendable {
    let perClient: RateLimiter
    let perAddress: RateLimiter
    /// What is counted, for the 429's words ("searches", "new entries opened").
    let what: String

    init(what: String, perClient: Int, perAddress: Int) {
        self.what = what
        self.perClient = RateLimiter(burst: perClient, per: 60)
        self.perAddress = RateLimiter(burst: perAddress, per: 60)
    }

    /// Spends `cost` of the client's and of its address's, or throws `tooManyRequests` (taking neither).
    func spend(_ client: Client, cost: Int = 1) throws {
        let what = "\(what) (a minute's worth)"
        try RateLimiter.take(all: [(perClient, client.key, what, "you"), (perAddress, client.address, what, "your address")], cost: Double(cost))
    }

    /// Gives back `cost` of what `spend` took, for work that then never started (or cost less).
    func giveBack(_ client: Client, cost: Int = 1) {
        perClient.giveBack(client.key, cost: Double(cost))
        perAddress.giveBack(client.address, cost: Double(cost))
    }
}

/// Room invitations one account may send: an hour's worth and a day's worth (each a burst, then
/// one at a time as the period allows). Spending takes one of each, or neither.
struct InvitationBudget: Sendable {
    let perHour: RateLimiter
    let perDay: RateLimiter

    init(perHour: Int, perDay: Int) {
        self.perHour = RateLimiter(burst: perHour, per: 3600)
        self.perDay = RateLimiter(burst: perDay, per: 24 * 3600)
    }

    func spend(_ accountID: String) throws {
        try RateLimiter.take(all: [(perHour, accountID, "invitations (an hour's worth)", "you"),
                                   (perDay, accountID, "invitations (a day's worth)", "you")])
    }

    /// Gives back what `spend` took, for an invitation that was then not stored.
    func giveBack(_ accountID: String) {
        perHour.giveBack(accountID)
        perDay.giveBack(accountID)
    }
}

/// What opening archive entries may cost: new downloads per client and per address each minute,
/// and downloads at once in all (a bounded line waits behind them; beyond it, `503`). Entries the
/// server holds already, and downloads under way that others join, cost nothing.
struct ArchiveOpenings: Sendable {
    let budget: MinuteBudget
    let downloads: WorkLimiter

    init(limits: ServerLimits) {
        budget = MinuteBudget(what: "new entries opened", perClient: limits.opensPerMinute, perAddress: limits.opensPerAddressPerMinute)
        downloads = WorkLimiter(width: limits.archiveDownloads, maxWaiting: 8 * limits.archiveDownloads, what: "archive downloads")
    }

    func admission(for client: Client) -> some Admission { OpenAdmission(openings: self, client: client) }
}

/// Searches that reach the archive: per client and per address each minute (answers kept a
/// minute, and searches under way that others join, cost nothing).
struct SearchLimits: Sendable {
    let budget: MinuteBudget

    init(limits: ServerLimits) {
        budget = MinuteBudget(what: "searches", perClient: limits.searchesPerMinute, perAddress: limits.searchesPerAddressPerMinute)
    }

    func admission(for client: Client) -> some Admission { SearchAdmission(budget: budget, client: client) }
}

private struct SearchAdmission: Admission {
    let budget: MinuteBudget
    let client: Client
    func admit<T: Sendable>(_ work: @Sendable () async throws -> T) async throws -> T {
        try budget.spend(client)
        return try await work()
    }
}

private struct OpenAdmission: Admission {
    let openings: ArchiveOpenings
    let client: Client
    func admit<T: Sendable>(_ work: @Sendable () async throws -> T) async throws -> T {
        try openings.budget.spend(client)
        // A download refused because too many wait (503) opened nothing: its tokens come back.
        let started = NIOLockedValueBox(false)
        do {
            return try await openings.downloads.withSlot {
                started.withLockedValue { $0 = true }
                return try await work()
            }
        } catch let error as LibraryError {
            if case .busy = error, !started.withLockedValue({ $0 }) { openings.budget.giveBack(client) }
            throw error
        }
    }
}
