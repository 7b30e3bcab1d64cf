import Foundation
import NIOConcurrencyHelpers
import NIOCore

/// One client's record of a run: what it sent, what the server answered, and every broadcast it
/// received. Its socket's reader and its sender both write here, under one lock each time (the
/// lock is its own, so clients never wait for each other).
final class LoadClient: @unchecked Sendable {
    let index: Int
    let roomID: String
    private let lock = NIOLock()
    /// 1 at each sequence received.
    private var seen = [UInt8](repeating: 0, count: 4_096)
    private var received = 0
    private var duplicates = 0
    private var broadcast = LatencyHistogram()
    private var acks = LatencyHistogram()
    private var acked: [String: UInt64] = [:]
    private var refused: [String: String] = [:]
    private var sentIDs: [String] = []
    private var errors: [String: Int] = [:]
    private var closed: [String: Int] = [:]
    private var dropTimes: [Double] = []
    private var behind = 0
    private var sendBlocked = 0
    private var welcomed = false

    /// What the client recorded, read under its lock.
    struct Record {
        var acked: [String: UInt64]
        var refused: [String: String]
        var sentIDs: [String]
        var errors: [String: Int]
        var closed: [String: Int]
        var dropTimes: [Double]
        var behind: Int
        var sendBlocked: Int
        var duplicates: Int
        var broadcast: LatencyHistogram
        var acks: LatencyHistogram
    }

    func record() -> Record {
        lock.withLock {
            Record(acked: acked, refused: refused, sentIDs: sentIDs, errors: errors, closed: closed, dropTimes: dropTimes,
                   behind: behind, sendBlocked: sendBlocked, duplicates: duplicates, broadcast: broadcast, acks: acks)
        }
    }

    var isWelcomed: Bool { lock.withLock { welcomed } }
    var hasDropped: Bool { lock.withLock { !closed.isEmpty } }
    var acknowledged: [UInt64] { lock.withLock { Array(acked.values) } }

    init(index: Int, roomID: String) { self.index = index; self.roomID = roomID }

    /// The client's socket, once connected.
    private var socket: Channel?
    var channel: Channel? {
        get { lock.withLock { socket } }
        set { lock.withLock { socket = newValue } }
    }
    /// The run is ending: a close from now on is expected, not a drop.
    private var closing = false
    func expectClose() { lock.withLock { closing = true } }
    /// A new socket for the same client: its closes count again.
    func reopen() { lock.withLock { closing = false; socket = nil } }
    func socketClosed() {
        if !lock.withLock({ closing }) { dropped("closed by the server", at: nil) }
    }

    func sent(_ id: String) { lock.withLock { sentIDs.append(id) } }
    func fellBehind() { lock.withLock { behind += 1 } }
    func waitedToSend() { lock.withLock { sendBlocked += 1 } }
    func dropped(_ why: String, at seconds: Double?) {
        lock.withLock {
            closed[why, default: 0] += 1
            if let seconds { dropTimes.append(seconds) }
        }
    }

    /// Reads one message from the server. Broadcasts and answers are found by scanning the text
    /// for the few fields that matter (the server writes them with sorted keys, an `op` with its
    /// type first when it is the stored text, last otherwise); decoding every
    /// message as JSON would cost the generator more than the server spends sending it.
    func receive(_ bytes: UnsafeBufferPointer<UInt8>, now: Double) {
        do {
            lock.withLock {
                if MessageScan.starts(bytes, with: MessageScan.opPrefix) || MessageScan.ends(bytes, with: MessageScan.opSuffix) {
                    // `op`, or `ops` with several: each has its clientOpID, then its sequence.
                    var at = 0
                    while let (id, after) = MessageScan.string(after: MessageScan.clientOpIDKey, in: bytes, from: at),
                          let (sequence, next) = MessageScan.number(after: MessageScan.sequenceKey, in: bytes, from: after) {
                        record(sequence: sequence, id: id, now: now)
                        at = next
                    }
                } else if MessageScan.ends(bytes, with: MessageScan.ackSuffix) {
                    if let (id, after) = MessageScan.string(after: MessageScan.clientOpIDKey, in: bytes, from: 0),
                       let (sequence, _) = MessageScan.number(after: MessageScan.sequenceKey, in: bytes, from: after) {
                        acked[id] = sequence
                        if let t0 = Self.sendTime(of: id) { acks.add(milliseconds: (now - t0) * 1_000) }
                    }
                } else if MessageScan.ends(bytes, with: MessageScan.errorSuffix) {
                    let code = MessageScan.string(after: MessageScan.codeKey, in: bytes, from: 0)?.0 ?? "?"
                    errors[code, default: 0] += 1
                    if let (id, _) = MessageScan.string(after: MessageScan.clientOpIDKey, in: bytes, from: 0) { refused[id] = code }
                } else if !welcomed, MessageScan.find(MessageScan.welcomeType, in: bytes, from: 0) != nil {
                    welcomed = true
                }
            }
        }
    }

    private func record(sequence: UInt64, id: String, now: Double) {
        let s = Int(clamping: sequence)
        if s >= seen.count { seen += [UInt8](repeating: 0, count: max(s + 1 - seen.count, seen.count)) }
        if seen[s] != 0 {
            duplicates += 1
        } else {
            seen[s] = 1
            received += 1
        }
        if let t0 = Self.sendTime(of: id) { broadcast.add(milliseconds: (now - t0) * 1_000) }
    }

    /// Client operation ids are "<client>-<k>-<send time in µs>": every receiver knows when an
    /// operation was sent without asking the sender (one clock: one process).
    static func operationID(client: Int, k: Int, sentAt seconds: Double) -> String {
        "\(client)-\(k)-\(Int((seconds * 1_000_000).rounded()))"
    }

    static func sendTime(of id: String) -> Double? {
        guard let dash = id.lastIndex(of: "-"), let micros = Int(id[id.index(after: dash)...]) else { return nil }
        return Double(micros) / 1_000_000
    }

    /// Every answer in, and every broadcast up to the room's last acknowledged sequence.
    func answeredAll() -> Bool { lock.withLock { acked.count + refused.count >= sentIDs.count } }
    func hasAll(upTo top: UInt64) -> Bool { lock.withLock { top == 0 || (Int(top) < seen.count && received >= Int(top)) } }

    /// Deliveries missing before a later one (gaps: lost) and those after the last one received
    /// (still on their way when the run stopped listening), up to the room's last acknowledged.
    func gaps(upTo top: UInt64) -> (lost: Int, tail: Int) {
        lock.withLock {
            let top = Int(top)
            var last = 0
            if top > 0 { for s in stride(from: min(top, seen.count - 1), through: 1, by: -1) where seen[s] != 0 { last = s; break } }
            let receivedBefore = last > 1 ? seen[1..<last].reduce(0) { $0 + Int($1) } : 0
            return (max(last - 1, 0) - receivedBefore, top - last)
        }
    }
}

/// Finding fields in the server's messages without decoding them.
enum MessageScan {
    static let opPrefix = Array(#"{"type":"op"#.utf8)
    static let opSuffix = Array(#""type":"op"}"#.utf8)
    static let welcomeType = Array(#""type":"welcome""#.utf8)
    static let ackSuffix = Array(#""type":"ack"}"#.utf8)
    static let errorSuffix = Array(#""type":"error"}"#.utf8)
    static let clientOpIDKey = Array(#""clientOpID":""#.utf8)
    static let sequenceKey = Array(#""sequence":"#.utf8)
    static let codeKey = Array(#""code":""#.utf8)

    static func starts(_ bytes: UnsafeBufferPointer<UInt8>, with prefix: [UInt8]) -> Bool {
        bytes.count >= prefix.count && zip(bytes, prefix).allSatisfy { $0 == $1 }
    }

    static func ends(_ bytes: UnsafeBufferPointer<UInt8>, with suffix: [UInt8]) -> Bool {
        bytes.count >= suffix.count && zip(bytes[(bytes.count - suffix.count)...], suffix).allSatisfy { $0 == $1 }
    }

    static func find(_ key: [UInt8], in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard let first = key.first, bytes.count >= key.count else { return nil }
        var i = start
        while i <= bytes.count - key.count {
            if bytes[i] == first {
                var j = 1
                while j < key.count, bytes[i + j] == key[j] { j += 1 }
                if j == key.count { return i + key.count }
            }
            i += 1
        }
        return nil
    }

    /// The string value after `key` (which ends with its opening quote), and where it ends.
    static func string(after key: [UInt8], in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> (String, Int)? {
        guard let begin = find(key, in: bytes, from: start) else { return nil }
        var end = begin
        while end < bytes.count, bytes[end] != UInt8(ascii: "\"") { end += 1 }
        guard end < bytes.count else { return nil }
        return (String(decoding: UnsafeBufferPointer(rebasing: bytes[begin..<end]), as: UTF8.self), end)
    }

    /// The whole number after `key`, and where it ends.
    static func number(after key: [UInt8], in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> (UInt64, Int)? {
        guard let begin = find(key, in: bytes, from: start) else { return nil }
        var end = begin, value: UInt64 = 0
        while end < bytes.count, bytes[end] >= 0x30, bytes[end] <= 0x39 {
            value = value &* 10 &+ UInt64(bytes[end] - 0x30)
            end += 1
        }
        return end > begin ? (value, end) : nil
    }
}
