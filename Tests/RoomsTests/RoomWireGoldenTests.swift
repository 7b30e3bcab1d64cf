import Foundation
import Rooms
import Testing

/// The rooms wire codec against its golden files (Tests/Fixtures/rooms-wire), which the web app's
/// reader (scripts/checks/rooms/wire-golden.mjs over Web/js/compact-snapshot.js) and the Python
/// checks' reader (proteinar_testing/compact_snapshot.py) read too. A change of form shows here as
/// a changed file: rewrite them with `PROTEINAR_WRITE_GOLDEN=1 swift test --filter RoomWire` and
/// say why in the commit.
@Suite("Rooms wire codec: golden files")
struct RoomWireGoldenTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../Fixtures/rooms-wire").standardizedFileURL

    /// A room with every kind of content: a smooth stroke (`r`), a jagged one (`q`), one off the
    /// 0.1 mm grid (plain points), a guest's stroke, notes with text that needs escaping, pinned
    /// in space and to a residue, a placed molecule and a lesson presented.
    static let operations: [LoggedOperation] = [
        .init(sequence: 1, author: "a1f00", clientOpID: "c1", operation: .addStroke(
            id: "s1", points: [.init(0.1, 0.2, 0.3), .init(0.1123, 0.2045, 0.2933), .init(0.1246, 0.209, 0.2866), .init(0.1369, 0.2135, 0.2799)],
            color: "#e53935", width: 0.004)),
        .init(sequence: 2, author: "g0123456789abcdef", clientOpID: "c2", operation: .addStroke(
            id: "s2", points: [.init(-0.05, 0, 0.02), .init(0.03, -0.01, 0), .init(0, 0.04, -0.03)], color: "#1e88e5", width: 0.002)),
        .init(sequence: 3, author: "a1f00", clientOpID: "c3", operation: .extendStroke(id: "s1", points: [.init(0.1492, 0.218, 0.2732)])),
        .init(sequence: 4, author: "a1f00", clientOpID: "c4", operation: .addStroke(
            id: "s3", points: [.init(0.123456789, 0.5, -0.25), .init(0.1, 0.2, 0.3)], color: "#43a047", width: 0.003)),
        .init(sequence: 5, author: "a1f00", clientOpID: "c5", operation: .addNote(
            id: "n1", text: "Heme pocket — “Fe²⁺” / a line\nthen \"quoted\" and \\ back", anchor: .point(.init(0.01, 0.02, -0.03)))),
        .init(sequence: 6, author: "g0123456789abcdef", clientOpID: "c6", operation: .addNote(
            id: "n2", text: "Gly 10", anchor: .residue(chain: "A", number: 10))),
        .init(sequence: 7, author: "a1f00", clientOpID: "c7", operation: .setMolecule(.init(
            moleculeID: "1AKE", style: "cartoon", transform: [0.5, 0, 0, 0, 0, 0.5, 0, 0, 0, 0, 0.5, 0, 0.01, 0.125, -0.2, 1]))),
        .init(sequence: 8, author: "a1f00", clientOpID: "c8", operation: .present(.init(
            lesson: "l0123456789abcdef0123", step: 2, camera: "q0.1,0.2,0.3,0.9274;d0.8;t0,0.1,-0.05"))),
    ]

    static var state: RoomState {
        var state = RoomState()
        for op in operations { state.replay(op) }
        return state
    }

    /// The file's text, or (when writing) `text` written to it.
    static func golden(_ name: String, _ text: String) throws -> String {
        let url = folder.appendingPathComponent(name)
        if ProcessInfo.processInfo.environment["PROTEINAR_WRITE_GOLDEN"] == "1" {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data((text + "\n").utf8).write(to: url)
        }
        return String(decoding: try Data(contentsOf: url), as: UTF8.self).trimmingCharacters(in: .newlines)
    }

    @Test("stored operations: the hand-written pen strokes and the encoder's text, byte for byte")
    func storedOperations() throws {
        let lines = try Self.operations.map { try $0.storedJSON(RoomWire.encoder) }
        #expect(lines.joined(separator: "\n") == (try Self.golden("stored-operations.jsonl", lines.joined(separator: "\n"))))
        for (op, line) in zip(Self.operations, lines) {
            #expect(line == String(decoding: try RoomWire.encoder.encode(op), as: UTF8.self), "fast path of \(op.clientOpID)")
            #expect(try JSONDecoder().decode(LoggedOperation.self, from: Data(line.utf8)) == op)
        }
    }

    @Test("stored snapshot: the hand-written text reads back through Codable as the room")
    func storedSnapshot() throws {
        let text = try Self.state.snapshotJSON()
        #expect(text == (try Self.golden("stored-snapshot.json", text)))
        #expect(try JSONDecoder().decode(RoomState.self, from: Data(text.utf8)) == Self.state)
        let encoded = try JSONDecoder().decode(RoomState.self, from: RoomWire.encoder.encode(Self.state))
        #expect(encoded == Self.state)
    }

    @Test("client snapshot: what the API and a welcome send")
    func clientSnapshot() throws {
        let text = String(decoding: try RoomWire.encoder.encode(RoomStateJSON(Self.state)), as: UTF8.self)
        #expect(text == (try Self.golden("client-snapshot.json", text)))
    }

    @Test("compact snapshot: r, q and plain strokes; expanded it is the client snapshot")
    func compactSnapshot() throws {
        let text = try CompactSnapshot.text(Self.state)
        #expect(text == (try Self.golden("compact-snapshot.json", text)))
        #expect(text.contains("\"r\":[") && text.contains("\"q\":[") && text.contains("\"points\":["))
    }
}
