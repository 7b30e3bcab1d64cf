import CompressNIO
import NIOConcurrencyHelpers
import NIOCore
import SketchRooms

/// The last compact snapshot written for each room, as text and, once asked for, deflated: a class
/// joining together (thirty phones opening the room one after another) costs one writing and one
/// compression of it, not thirty. A joiner of a room that moved on since is sent the kept
/// deflated snapshot and the operations after it (`LiveRoomSocket.longestTail`), so a room being
/// drawn in is not compressed again for every joiner. At most `limitBytes` in all; a room's entry
/// is replaced by a newer one.
final class CompactSnapshotCache: Sendable {
    /// A compact snapshot compressed once (raw DEFLATE, RFC 1951: what the browser's
    /// `DecompressionStream('deflate-raw')` reads), sent as a binary frame.
    struct Deflated: Sendable {
        var sequence: UInt64
        var bytes: ByteBuffer
        /// The length of the text it holds.
        var textBytes: Int
    }

    private struct Entry {
        var sequence: UInt64
        var text: String
        var deflated: Deflated?
        var bytes: Int { text.utf8.count + (deflated?.bytes.readableBytes ?? 0) }
    }

    let limitBytes: Int
    private let entries = NIOLockedValueBox([String: Entry]())

    init(limitBytes: Int = 32 << 20) { self.limitBytes = limitBytes }

    /// The room's compact snapshot at the state's sequence, written now or kept from before.
    func text(for room: String, _ state: RoomState) throws -> String {
        if let kept = entries.withLockedValue({ $0[room] }), kept.sequence == state.sequence { return kept.text }
        let text = try CompactSnapshot.text(state)
        keep(Entry(sequence: state.sequence, text: text, deflated: nil), for: room)
        return text
    }

    /// The deflated snapshot kept for the room, whatever its sequence.
    func keptDeflated(for room: String) -> Deflated? {
        entries.withLockedValue { $0[room]?.deflated }
    }

    /// The room's compact snapshot at the state's sequence, deflated now or kept from before.
    func deflated(for room: String, _ state: RoomState) throws -> Deflated {
        let kept = entries.withLockedValue { $0[room] }
        if let kept, kept.sequence == state.sequence, let deflated = kept.deflated { return deflated }
        let text = try kept.flatMap { $0.sequence == state.sequence ? $0.text : nil } ?? CompactSnapshot.text(state)
        var plain = ByteBuffer(string: text)
        let deflated = Deflated(sequence: state.sequence, bytes: try plain.compress(with: .deflate()), textBytes: text.utf8.count)
        keep(Entry(sequence: state.sequence, text: text, deflated: deflated), for: room)
        return deflated
    }

    private func keep(_ entry: Entry, for room: String) {
        entries.withLockedValue { entries in
            // Two joiners may write at once: the newer state stays.
            if let kept = entries[room], kept.sequence > entry.sequence { return }
            entries[room] = entry
            if entries.values.reduce(0, { $0 + $1.bytes }) > limitBytes { entries = [room: entry] }
        }
    }
}
