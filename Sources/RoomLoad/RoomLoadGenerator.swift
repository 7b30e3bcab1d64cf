#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// The rooms' load generator: every client of the plan on its own WebSocket, all in this process
/// on one event-loop thread (LoadSocket), adding one stroke point every interval (an add-stroke,
/// then extend-stroke messages of one point; a new stroke about every second) and recording what
/// comes back (LoadClient). Made to cost far less than the server it measures, so that the server,
/// not the clients, sets the figures; its own CPU share is part of the result.
public struct RoomLoadGenerator: Sendable {
    public let plan: RoomLoadPlan
    public init(plan: RoomLoadPlan) { self.plan = plan }

    /// Connects every client, calls `connected` with the seconds it took, waits for `start` to say
    /// when to begin (seconds from now), sends for the plan's seconds, waits for late answers, and
    /// returns what was measured.
    public func run(connected: @escaping @Sendable (Double) -> Void,
                    start: @escaping @Sendable () async -> Double) async throws -> RoomLoadResult {
        guard !plan.deflate else {
            throw RoomLoadError("the Swift generator does not offer permessage-deflate; use --generator python --deflate")
        }
        guard let url = URL(string: plan.base), let host = url.host, let port = url.port else {
            throw RoomLoadError("base \(plan.base): expected ws://HOST:PORT")
        }
        let clients = plan.rooms.flatMap { room in room.clients.map { LoadClient(index: $0.index, roomID: room.id) } }
        let auths = plan.rooms.flatMap { $0.clients.map(\.auth) }
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let connectStart = Clock.seconds()
        // In waves of 20, as the Python clients do: the server's edge takes a bounded number of
        // handshakes from one address at once.
        func connect(_ i: Int) {
            let client = clients[i], auth = auths[i]
            var path = "/api/rooms/\(client.roomID)/live", headers: [(String, String)] = []
            if auth.hasPrefix("token:") { headers.append(("Authorization", "Bearer \(auth.dropFirst(6))")) } else { path += "?guest=\(auth)" }
            LoadSocket.connect(host: host, port: port, path: path, headers: headers, client: client, on: group).whenComplete { result in
                switch result {
                case .success(let channel): client.channel = channel
                case .failure(let error): client.dropped("connect: \(error)".prefix(120).description, at: nil)
                }
            }
        }
        var attempts = [Int](repeating: 1, count: clients.count), lastAttempt = [Double](repeating: 0, count: clients.count)
        for i in clients.indices {
            if i > 0, i % 20 == 0 { try await Task.sleep(for: .milliseconds(50)) }
            lastAttempt[i] = Clock.seconds()
            connect(i)
        }
        // Every client's welcome, or a failure, within two minutes. A socket with no welcome after
        // 10 s (seen once in a few thousand handshakes) is opened again, at most twice.
        while !clients.allSatisfy(\.isWelcomed) {
            for i in clients.indices where !clients[i].isWelcomed && !clients[i].hasDropped && attempts[i] < 3 && Clock.seconds() - lastAttempt[i] > 10 {
                clients[i].expectClose()
                try? await clients[i].channel?.close()
                clients[i].reopen()
                attempts[i] += 1
                lastAttempt[i] = Clock.seconds()
                connect(i)
            }
            if Clock.seconds() - connectStart > 120 || clients.contains(where: \.hasDropped) {
                let done = clients.filter(\.isWelcomed).count
                let why = clients.lazy.flatMap { $0.record().closed.keys }.first ?? "timed out"
                await Self.close(clients, group: group)
                throw RoomLoadError("\(done)/\(clients.count) clients connected; \(why)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        connected(Clock.seconds() - connectStart)
        let delay = await start()
        let startAt = Clock.seconds() + delay, endAt = startAt + plan.seconds
        let cpu0 = Self.cpuSeconds()
        let pens = PenSender(clients: clients, plan: plan, startAt: startAt, endAt: endAt)
        let sending = group.next().scheduleRepeatedTask(initialDelay: .milliseconds(1), delay: .milliseconds(1)) { _ in pens.tick() }
        while Clock.seconds() < endAt { try await Task.sleep(for: .milliseconds(20)) }
        sending.cancel()
        let cpu = Self.cpuSeconds() - cpu0, wall = Clock.seconds() - startAt
        // Late answers and broadcasts, until all are in or the drain time is up.
        let drainStart = Clock.seconds()
        var drained = false
        while Clock.seconds() - drainStart < plan.drainSeconds {
            if Self.drained(clients) { drained = true; break }
            try await Task.sleep(for: .milliseconds(100))
        }
        let drainSeconds = Clock.seconds() - drainStart
        await Self.close(clients, group: group)
        return Self.result(clients, drained: drained, cpu: cpu, wall: wall, drainSeconds: drainSeconds)
    }

    /// Says goodbye on every socket, then closes them and the event loop.
    static func close(_ clients: [LoadClient], group: MultiThreadedEventLoopGroup) async {
        for client in clients {
            client.expectClose()
            guard let channel = client.channel else { continue }
            channel.writeAndFlush(LoadSocket.closeFrame(allocator: channel.allocator)).whenComplete { _ in channel.close(promise: nil) }
        }
        try? await Task.sleep(for: .milliseconds(300))
        for client in clients { try? await client.channel?.close() }
        try? await group.shutdownGracefully()
    }

    static func drained(_ clients: [LoadClient]) -> Bool {
        for (_, members) in Dictionary(grouping: clients, by: \.roomID) {
            guard members.allSatisfy({ $0.answeredAll() }) else { return false }
            let top = members.flatMap(\.acknowledged).max() ?? 0
            guard members.allSatisfy({ $0.hasAll(upTo: top) }) else { return false }
        }
        return true
    }

    static func result(_ clients: [LoadClient], drained: Bool, cpu: Double, wall: Double, drainSeconds: Double) -> RoomLoadResult {
        var rooms: [String: RoomLoadResult.Room] = [:]
        var broadcast = LatencyHistogram(), acks = LatencyHistogram()
        var lost = 0, tail = 0, expected = 0
        var errors: [String: Int] = [:], closed: [String: Int] = [:]
        var duplicates = 0, behind = 0, sendBlocked = 0, dropTimes: [Double] = []
        for (id, members) in Dictionary(grouping: clients, by: \.roomID) {
            var acked: [String: UInt64] = [:], refused = 0, sent = 0, unanswered: [String] = []
            let records = members.map { $0.record() }
            for m in records {
                acked.merge(m.acked) { a, _ in a }
                refused += m.refused.count
                sent += m.sentIDs.count
                unanswered += m.sentIDs.filter { m.acked[$0] == nil && m.refused[$0] == nil }
                broadcast.merge(m.broadcast); acks.merge(m.acks)
                errors.merge(m.errors, uniquingKeysWith: +); closed.merge(m.closed, uniquingKeysWith: +)
                duplicates += m.duplicates; behind += m.behind; sendBlocked += m.sendBlocked; dropTimes += m.dropTimes
            }
            let top = acked.values.max() ?? 0
            for m in members {
                let (l, t) = m.gaps(upTo: top)
                lost += l; tail += t
            }
            expected += acked.count * members.count
            rooms[id] = .init(sent: sent, acked: acked, refused: refused, unanswered: unanswered)
        }
        return RoomLoadResult(
            rooms: rooms, drained: drained, sent: rooms.values.reduce(0) { $0 + $1.sent },
            acked: rooms.values.reduce(0) { $0 + $1.acked.count }, refused: rooms.values.reduce(0) { $0 + $1.refused },
            unanswered: rooms.values.reduce(0) { $0 + $1.unanswered.count }, lost_deliveries: lost, undelivered_tail: tail,
            duplicates: duplicates, deliveries_expected: expected,
            hist: broadcast.counts, slow: broadcast.slow, ack_hist: acks.counts, ack_slow: acks.slow,
            errors: errors, closed: closed, behind: behind, send_blocked: sendBlocked, drop_times: dropTimes,
            cpu: cpu, wall: wall, drain_s: drainSeconds, clients: clients.count)
    }

    /// This process's CPU time (user and system), in seconds.
    static func cpuSeconds() -> Double {
        var usage = rusage()
        #if canImport(Glibc)
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        #else
        getrusage(RUSAGE_SELF, &usage)
        #endif
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1_000_000 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}

public struct RoomLoadError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

/// Every client's pen, driven from the event loop every millisecond: each client adds a point
/// every interval from the start to the end, and a client that falls behind skips the missed slots
/// (a burst would meet the server's rate limit), as the Python clients do. Points are written
/// without waiting; each socket is flushed once per tick. Only the event loop touches it.
final class PenSender: @unchecked Sendable {
    let clients: [LoadClient]
    let interval: Double, perStroke: Int, endAt: Double
    var pens: [Pen]

    init(clients: [LoadClient], plan: RoomLoadPlan, startAt: Double, endAt: Double) {
        self.clients = clients
        interval = plan.intervalMilliseconds / 1_000
        perStroke = plan.pointsPerStroke
        self.endAt = endAt
        pens = clients.map { client in
            Pen(seed: UInt64(client.index) &* 0x9E37_79B9 &+ client.roomID.utf8.reduce(UInt64(0)) { $0 &* 31 &+ UInt64($1) },
                startAt: startAt, interval: plan.intervalMilliseconds / 1_000)
        }
    }

    func tick() {
        let now = Clock.seconds()
        guard now < endAt else { return }
        for i in pens.indices where pens[i].next <= now {
            let client = clients[i]
            guard let channel = client.channel, channel.isActive else { continue }
            if !channel.isWritable { client.waitedToSend() }  // the server reads slower than we send
            let (id, text) = pens[i].nextMessage(client: client.index, perStroke: perStroke, sentAt: Clock.seconds())
            client.sent(id)
            channel.writeAndFlush(LoadSocket.textFrame(text, allocator: channel.allocator, key: UInt32(truncatingIfNeeded: pens[i].random.next())),
                                  promise: nil)
            pens[i].next += interval
            if now - pens[i].next > interval { client.fellBehind(); pens[i].next = now }
        }
    }
}

/// One clock for every client: seconds since the process's first look at it.
enum Clock {
    private static let origin = ContinuousClock.now
    static func seconds() -> Double {
        let d = ContinuousClock.now - origin
        return Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
    }
}

/// One client's pen: where it is, its stroke, and when its next point is due.
struct Pen {
    var random: SplitMix
    var x: Double, y: Double, z: Double
    var next: Double
    var k = 0
    var stroke = ""
    var done = false

    init(seed: UInt64, startAt: Double, interval: Double) {
        random = SplitMix(seed: seed)
        x = random.uniform(-1, 1); y = random.uniform(0, 2); z = random.uniform(-1, 1)
        next = startAt + random.uniform(0, interval)  // clients out of step, as people are
    }

    /// The next point's message and its client operation id: a new stroke every `perStroke` points.
    mutating func nextMessage(client: Int, perStroke: Int, sentAt: Double) -> (id: String, text: String) {
        x += random.uniform(-0.005, 0.005); y += random.uniform(-0.005, 0.005); z += random.uniform(-0.005, 0.005)
        let point = "[[\(Fixed.four(x)),\(Fixed.four(y)),\(Fixed.four(z))]]"
        let operation: String
        if k % perStroke == 0 {
            stroke = "c\(client)s\(k)"
            operation = ##"{"type":"add-stroke","id":"\##(stroke)","points":\##(point),"color":"#3366ff","width":0.004}"##
        } else {
            operation = #"{"type":"extend-stroke","id":"\#(stroke)","points":\#(point)}"#
        }
        let id = LoadClient.operationID(client: client, k: k, sentAt: sentAt)
        k += 1
        return (id, #"{"type":"op","clientOpID":"\#(id)","operation":\#(operation)}"#)
    }
}

/// Numbers with four decimals, as a pen's points (0.1 mm), without a formatter per point.
enum Fixed {
    static func four(_ v: Double) -> String {
        let n = Int((v * 10_000).rounded())
        let sign = n < 0 ? "-" : "", m = abs(n)
        let fraction = String(m % 10_000)
        return "\(sign)\(m / 10_000).\(String(repeating: "0", count: 4 - fraction.count))\(fraction)"
    }
}

/// A small seeded generator (SplitMix64): each client's path is the same on every run.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func uniform(_ low: Double, _ high: Double) -> Double {
        low + (high - low) * Double(next() >> 11) / Double(1 << 53)
    }
}
