import CompressNIO
import Foundation
@testable import LiveRooms
import NIOCore
@testable import ProteinARServer
import Rooms
import Testing

/// The compact snapshot a late joiner asks for: expanded the way room-sync.js does, it is the room.
@Suite("Compact snapshots")
struct CompactSnapshotTests {
    /// room-sync.js's expandSnapshot, in Swift: points from q (steps) or r (changes of step).
    struct PlainStroke: Equatable {
        var id: String, author: String, color: String, width: Double, points: [RoomPoint]
    }

    static func expand(_ text: String) throws -> (sequence: UInt64, strokes: [PlainStroke]) {
        let json = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let authors = try #require(json["authors"] as? [String]), colors = try #require(json["colors"] as? [String])
        var strokes: [PlainStroke] = []
        for s in try #require(json["strokes"] as? [[String: Any]]) {
            var points: [RoomPoint] = []
            if let plain = s["points"] as? [[Double]] {
                points = plain.map { RoomPoint($0[0], $0[1], $0[2]) }
            } else {
                let numbers = try #require((s["q"] ?? s["r"]) as? [Int]), changes = s["q"] == nil
                var p = (0, 0, 0), d = (0, 0, 0)
                for i in stride(from: 0, to: numbers.count - 2, by: 3) {
                    if changes && i >= 6 { d = (d.0 + numbers[i], d.1 + numbers[i + 1], d.2 + numbers[i + 2]) }
                    else { d = (numbers[i], numbers[i + 1], numbers[i + 2]) }
                    p = (p.0 + d.0, p.1 + d.1, p.2 + d.2)
                    points.append(RoomPoint(Double(p.0) / 1e4, Double(p.1) / 1e4, Double(p.2) / 1e4))
                }
            }
            let id = try #require(s["id"] as? String), a = try #require(s["a"] as? Int), c = try #require(s["c"] as? Int)
            let width = try #require(s["w"] as? Double)
            strokes.append(PlainStroke(id: id, author: authors[a], color: colors[c], width: width, points: points))
        }
        return (UInt64(try #require(json["sequence"] as? Int)), strokes)
    }

    @Test("on the 0.1 mm grid, off it, smooth and jagged strokes: expanded exactly to the room's strokes")
    func roundTrip() throws {
        var state = RoomState()
        let room = RoomSettings(id: "r", name: "r", ownerID: "ada", isPublic: true, guestsMayDraw: true)
        var random = SystemRandomNumberGenerator()
        var smooth: [RoomPoint] = [], jagged: [RoomPoint] = []
        for i in 0..<40 {
            let x = Double(1_000 + 3 * i * i) / 1e4, y = Double(-2_500 + 17 * i) / 1e4
            smooth.append(RoomPoint(x, y, 7 / 1e4))
        }
        for _ in 0..<30 {
            let x = Double(Int.random(in: -90_000...90_000, using: &random)) / 1e4
            let y = Double(Int.random(in: 0...20_000, using: &random)) / 1e4
            jagged.append(RoomPoint(x, y, -0.5))
        }
        let offGrid = [RoomPoint(0.123456789, 1, 2), RoomPoint(0.1, 0.2, 0.3)]
        for (n, (points, who)) in [(smooth, "ada"), (jagged, "ben"), (offGrid, "ada"), ([RoomPoint(-999.9999, 999.9999, 0)], "ben")].enumerated() {
            _ = try state.apply(ClientOperation(clientOpID: "c\(n)", operation: .addStroke(id: "s\(n)", points: points, color: n % 2 == 0 ? "#3366ff" : "#ff0000", width: 0.004)),
                                by: Participant(id: who, isGuest: who == "ben"), in: room)
        }
        let text = try CompactSnapshot.text(state)
        #expect(text.contains("\"r\":[") && text.contains("\"q\":[") && text.contains("\"points\":"))
        let (sequence, strokes) = try Self.expand(text)
        let expected = state.strokes.map { PlainStroke(id: $0.id, author: $0.author, color: $0.color, width: $0.width, points: $0.points) }
        #expect(sequence == state.sequence && strokes == expected)
        let plain = try RoomWire.encoder.encode(RoomStateJSON(state))
        #expect(text.utf8.count < plain.count)
    }

    @Test("the cache: deflated bytes inflate to the text; a joiner asking for text keeps the deflated one; other rooms go first past the limit")
    func cache() async throws {
        let room = RoomSettings(id: "r", name: "r", ownerID: "ada", isPublic: true, guestsMayDraw: true)
        func state(strokes: Int) throws -> RoomState {
            var state = RoomState()
            for n in 0..<strokes {
                let points = (0..<20).map { RoomPoint(Double(n * 40 + $0) / 1e4, Double($0 * $0) / 1e4, 0.25) }
                _ = try state.apply(ClientOperation(clientOpID: "c\(n)", operation: .addStroke(id: "s\(n)", points: points, color: "#3366ff", width: 0.004)),
                                    by: Participant(id: "ada"), in: room)
            }
            return state
        }
        let cache = CompactSnapshotCache(limitBytes: 100_000)
        let first = try state(strokes: 50), later = try state(strokes: 60)
        let deflated = try await cache.deflated(for: "a", first)
        var bytes = deflated.bytes
        let inflated = String(buffer: try bytes.decompress(with: .deflate()))
        let text = try CompactSnapshot.text(first)
        #expect(inflated == text && deflated.sequence == first.sequence && deflated.textBytes == inflated.utf8.count)
        #expect(deflated.bytes.readableBytes * 2 < inflated.utf8.count)
        // The same state again: the same bytes, not written again.
        let again = try await cache.deflated(for: "a", first)
        #expect(again.bytes == deflated.bytes)
        // Text for a newer state leaves the deflated one as it was (the next deflated joiner's base).
        _ = try cache.text(for: "a", later)
        #expect(cache.keptDeflated(for: "a")?.sequence == first.sequence)
        // An older state never replaces a newer one.
        _ = try await cache.deflated(for: "a", later)
        _ = try await cache.deflated(for: "a", first)
        #expect(cache.keptDeflated(for: "a")?.sequence == later.sequence)
        // Past the limit, another room's entry goes and this one stays.
        let big = try state(strokes: 1_000)  // more text than the limit alone
        _ = try cache.text(for: "b", big)
        let bigText = try CompactSnapshot.text(big).utf8.count
        #expect(cache.keptDeflated(for: "a") == nil && cache.keptBytes <= max(100_000, bigText) && bigText > 100_000)
    }

    @Test("thirty joiners of a room at once share one compression of its snapshot")
    func oneCompressionForJoinersTogether() async throws {
        let room = RoomSettings(id: "r", name: "r", ownerID: "ada", isPublic: true, guestsMayDraw: true)
        var state = RoomState()
        for n in 0..<400 {
            let points = (0..<50).map { RoomPoint(Double(n * 40 + $0) / 1e4, Double($0 * $0) / 1e4, 0.25) }
            _ = try state.apply(ClientOperation(clientOpID: "c\(n)", operation: .addStroke(id: "s\(n)", points: points, color: "#3366ff", width: 0.004)),
                                by: Participant(id: "ada"), in: room)
        }
        let cache = CompactSnapshotCache()
        let snapshot = state
        let sizes = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<30 { group.addTask { try await cache.deflated(for: "r", snapshot).bytes.readableBytes } }
            return try await group.reduce(into: Set<Int>()) { $0.insert($1) }
        }
        #expect(sizes.count == 1 && cache.compressions == 1, "\(cache.compressions) compressions")
    }
}
