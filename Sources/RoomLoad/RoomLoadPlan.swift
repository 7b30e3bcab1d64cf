import Foundation

/// What a load run does: which rooms, which clients in each (a guest key or an account's bearer
/// token), how often each adds a point, for how long, and how long to wait for late answers. The
/// driver that sets up the server and the rooms (scripts/benchmarks/benchmark-rooms.py) writes it
/// as JSON; the names are the driver's.
public struct RoomLoadPlan: Codable, Sendable {
    public struct Room: Codable, Sendable {
        public var id: String
        /// (client index, auth): auth is "token:…" for an account, anything else is a guest key.
        public var clients: [Client]
    }
    public struct Client: Codable, Sendable {
        public var index: Int
        public var auth: String
    }
    /// The server's WebSocket base, e.g. ws://127.0.0.1:8080
    public var base: String
    public var rooms: [Room]
    public var intervalMilliseconds: Double
    public var seconds: Double
    public var drainSeconds: Double
    /// Offer permessage-deflate, as browsers do.
    public var deflate: Bool

    /// Points per stroke: a new stroke about every second, as a pen lifts.
    var pointsPerStroke: Int { max(1, Int((1_000 / intervalMilliseconds).rounded())) }
}

/// What a run measured, in the shape of the Python clients' results (benchmark-rooms.py adds them
/// up and prints one report for either): latencies as a histogram of 0.1 ms buckets up to 2 s plus
/// the slower ones exactly, counts, and every acknowledged operation's sequence for checking the
/// server's log.
public struct RoomLoadResult: Codable, Sendable {
    public struct Room: Codable, Sendable {
        public var sent: Int
        public var acked: [String: UInt64]
        public var refused: Int
        public var unanswered: [String]
    }
    public var rooms: [String: Room]
    public var drained: Bool
    public var sent: Int
    public var acked: Int
    public var refused: Int
    public var unanswered: Int
    public var lost_deliveries: Int
    public var undelivered_tail: Int
    public var duplicates: Int
    public var deliveries_expected: Int
    public var hist: [Int]
    public var slow: [Double]
    public var ack_hist: [Int]
    public var ack_slow: [Double]
    public var errors: [String: Int]
    public var closed: [String: Int]
    public var behind: Int
    public var send_blocked: Int
    public var drop_times: [Double]
    /// The generator's own CPU seconds and wall seconds while clients were sending.
    public var cpu: Double
    public var wall: Double
    public var drain_s: Double
    public var clients: Int
}

/// Latencies in 0.1 ms buckets up to 2 s (what the Python report reads), slower ones kept exactly.
struct LatencyHistogram: Sendable {
    static let bucketMilliseconds = 0.1
    static let buckets = 20_000
    var counts = [Int](repeating: 0, count: LatencyHistogram.buckets)
    var slow: [Double] = []

    mutating func add(milliseconds ms: Double) {
        let b = Int(ms / Self.bucketMilliseconds)
        if b >= 0, b < Self.buckets { counts[b] += 1 } else { slow.append(ms) }
    }

    mutating func merge(_ other: LatencyHistogram) {
        for i in counts.indices { counts[i] += other.counts[i] }
        slow += other.slow
    }
}
