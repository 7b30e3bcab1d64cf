import Foundation
@testable import ProteinARServer
import SketchRooms
import Testing

/// The compact snapshot a late joiner asks for: expanded the way room-sync.js does, it is the room.
@Suite("Compact snapshots")
struct CompactSnapshotTests {
    /// room-sync.js's expandSnapshot, in Swift: points from q (steps) or r (changes of step).
    static func expand(_ text: String) throws -> (sequence: UInt64, strokes: [Stroke]) {
        let json = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let authors = try #require(json["authors"] as? [String]), colors = try #require(json["colors"] as? [String])
        var strokes: [Stroke] = []
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
            strokes.append(Stroke(id: try #require(s["id"] as? String), author: authors[try #require(s["a"] as? Int)],
                                  color: colors[try #require(s["c"] as? Int)], width: try #require(s["w"] as? Double), points: points))
        }
        return (UInt64(try #require(json["sequence"] as? Int)), strokes)
    }

    @Test("on the 0.1 mm grid, off it, smooth and jagged strokes: expanded exactly to the room's strokes")
    func roundTrip() throws {
        var state = RoomState()
        let room = RoomSettings(id: "r", name: "r", ownerID: "ada", isPublic: true, guestsMayDraw: true)
        var random = SystemRandomNumberGenerator()
        let smooth = (0..<40).map { i in RoomPoint(Double(1000 + 3 * i * i) / 1e4, Double(-2500 + 17 * i) / 1e4, Double(7) / 1e4) }
        let jagged = (0..<30).map { _ in RoomPoint(Double(Int.random(in: -90_000...90_000, using: &random)) / 1e4,
                                                   Double(Int.random(in: 0...20_000, using: &random)) / 1e4, -0.5) }
        let offGrid = [RoomPoint(0.123456789, 1, 2), RoomPoint(0.1, 0.2, 0.3)]
        for (n, (points, who)) in [(smooth, "ada"), (jagged, "ben"), (offGrid, "ada"), ([RoomPoint(-999.9999, 999.9999, 0)], "ben")].enumerated() {
            _ = try state.apply(ClientOperation(clientOpID: "c\(n)", operation: .addStroke(id: "s\(n)", points: points, color: n % 2 == 0 ? "#3366ff" : "#ff0000", width: 0.004)),
                                by: Actor(id: who, isGuest: who == "ben"), in: room)
        }
        let text = try CompactSnapshot.text(state)
        #expect(text.contains("\"r\":[") && text.contains("\"q\":[") && text.contains("\"points\":"))
        let (sequence, strokes) = try Self.expand(text)
        #expect(sequence == state.sequence && strokes == state.strokes)
        let plain = try RoomJSON.encoder.encode(RoomStateJSON(state))
        #expect(text.utf8.count < plain.count)
    }
}
