import CompressNIO
import MoleculeLibrary
import NIOConcurrencyHelpers
import NIOCore
import Rooms

/// The last compact snapshot written for each room, as text and, once asked for, deflated: a class
/// joining together (thirty phones opening the room one after another) costs one writing and one
/// compression of it, not thirty. A joiner of a room that moved on since is sent the kept
/// deflated snapshot and the operations after it (`LiveRoomSocket.longestTail`), so a room being
/// drawn in is not compressed again for every joiner. At most `limitBytes` in all (other rooms'
/// entries go first); a room's forms are replaced by newer ones. Joiners arriving at once while
/// none is kept share one compression (one per room and sequence, `SharedWork`).
public final class CompactSnapshotCache: Sendable {
    /// A compact snapshot compressed once (raw DEFLATE, RFC 1951: what the browser's
    /// `DecompressionStream('deflate-raw')` reads), sent as a binary frame.
    public struct Deflated: Sendable {
        public var sequence: UInt64
        public var bytes: ByteBuffer
        /// The length of the text it holds.
        public var textBytes: Int
    }

    /// A room's two forms, each of its own sequence: a joiner asking for the text must not take
    /// away the deflated one that the next joiners would be sent.
    private struct Entry {
        var text: (sequence: UInt64, text: String)?
        var deflated: Deflated?
        var bytes: Int { (text?.text.utf8.count ?? 0) + (deflated?.bytes.readableBytes ?? 0) }
    }

    public let limitBytes: Int
    private let entries = NIOLockedValueBox([String: Entry]())
    /// Compressions under way, by room and sequence: joiners at once wait for the one.
    private let compressing = SharedWork<Deflated>()
    private let compressionCount = NIOLockedValueBox(0)

    public init(limitBytes: Int = 32 << 20) { self.limitBytes = limitBytes }

    /// The room's compact snapshot at the state's sequence, written now or kept from before.
    public func text(for room: String, _ state: RoomState) throws -> String {
        if let kept = entries.withLockedValue({ $0[room]?.text }), kept.sequence == state.sequence { return kept.text }
        let text = try CompactSnapshot.text(state)
        keep(room) { entry in
            if (entry.text?.sequence ?? 0) <= state.sequence { entry.text = (state.sequence, text) }
        }
        return text
    }

    /// The deflated snapshot kept for the room, whatever its sequence.
    public func keptDeflated(for room: String) -> Deflated? {
        entries.withLockedValue { $0[room]?.deflated }
    }

    /// The room's compact snapshot at the state's sequence, deflated now (once, however many ask
    /// at the same time) or kept from before.
    public func deflated(for room: String, _ state: RoomState) async throws -> Deflated {
        if let deflated = entries.withLockedValue({ $0[room]?.deflated }), deflated.sequence == state.sequence { return deflated }
        return try await compressing.run("\(room)\u{0}\(state.sequence)") { [self] in try compress(room, state) }
    }

    private func compress(_ room: String, _ state: RoomState) throws -> Deflated {
        let kept = entries.withLockedValue { $0[room] }
        if let deflated = kept?.deflated, deflated.sequence == state.sequence { return deflated }
        let text = try kept?.text.flatMap { $0.sequence == state.sequence ? $0.text : nil } ?? CompactSnapshot.text(state)
        var plain = ByteBuffer(string: text)
        let deflated = Deflated(sequence: state.sequence, bytes: try plain.compress(with: .deflate()), textBytes: text.utf8.count)
        compressionCount.withLockedValue { $0 += 1 }
        keep(room) { entry in
            // Two rooms' states may be written at once: the newer state stays.
            if (entry.deflated?.sequence ?? 0) <= state.sequence { entry.deflated = deflated }
        }
        return deflated
    }

    /// How many snapshots were compressed (for tests).
    public var compressions: Int { compressionCount.withLockedValue { $0 } }

    /// Changes the room's entry; past `limitBytes` in all, other rooms' entries go (this one stays).
    private func keep(_ room: String, _ change: (inout Entry) -> Void) {
        entries.withLockedValue { entries in
            var entry = entries[room] ?? Entry()
            change(&entry)
            entries[room] = entry
            var total = entries.values.reduce(0) { $0 + $1.bytes }
            for other in entries.keys where other != room && total > limitBytes {
                total -= entries[other]?.bytes ?? 0
                entries[other] = nil
            }
        }
    }

    /// The bytes kept in all (for tests).
    public var keptBytes: Int { entries.withLockedValue { $0.values.reduce(0) { $0 + $1.bytes } } }
}
