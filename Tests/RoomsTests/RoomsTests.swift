import Foundation
@testable import Rooms
import Testing
import TextOutput

/// Rooms without I/O: ordering, resends, undo, permissions, bad operations, snapshots.
@Suite("Sketch rooms")
struct RoomsTests {
    let teacher = Participant(id: "teacher")
    let student = Participant(id: "student")
    let stranger = Participant(id: "stranger")
    let guest = Participant(id: "session-42", isGuest: true)
    var room: RoomSettings { RoomSettings(id: "room-1", name: "1AKE active site", ownerID: "teacher", isPublic: true, members: ["student"]) }

    static func stroke(_ id: String, _ n: Int = 3, color: String = "#ff0000") -> RoomOperation {
        .addStroke(id: id, points: (0..<n).map { RoomPoint(Double($0) * 0.01, 0, 0) }, color: color, width: 0.005)
    }

    func accept(_ state: inout RoomState, _ actor: Participant, _ id: String, _ op: RoomOperation) throws -> LoggedOperation {
        guard case .accepted(let logged) = try state.apply(ClientOperation(clientOpID: id, operation: op), by: actor, in: room) else {
            throw RoomError(.invalid, "expected a new operation")
        }
        return logged
    }

    @Test("operations are numbered in order; a resend is recognised, not applied twice")
    func ordering() throws {
        var state = RoomState()
        let a = try accept(&state, teacher, "t1", Self.stroke("s1"))
        let b = try accept(&state, student, "u1", Self.stroke("s2"))
        let c = try accept(&state, student, "u2", .extendStroke(id: "s2", points: [RoomPoint(1, 1, 1)]))
        #expect([a.sequence, b.sequence, c.sequence] == [1, 2, 3])
        #expect(try state.apply(ClientOperation(clientOpID: "u1", operation: Self.stroke("s2")), by: student, in: room) == .duplicate(sequence: 2))
        #expect(state.sequence == 3 && state.strokes.map(\.id) == ["s1", "s2"] && state.strokes[1].points.count == 4)
    }

    @Test("undo removes the sender's own last stroke as a whole; clear is the owner's")
    func undoAndClear() throws {
        var state = RoomState()
        _ = try accept(&state, teacher, "t1", Self.stroke("s1"))
        _ = try accept(&state, student, "u1", Self.stroke("s2"))
        _ = try accept(&state, teacher, "t2", Self.stroke("s3"))
        let undo = try accept(&state, student, "u2", .undo)
        #expect(undo.operation == .removeStroke(id: "s2"))
        #expect(state.strokes.map(\.id) == ["s1", "s3"])
        #expect(throws: RoomError(.notFound, "you have no stroke to undo")) { try state.apply(ClientOperation(clientOpID: "u3", operation: .undo), by: student, in: room) }
        #expect(throws: RoomError(.forbidden, "only the room's owner may clear it")) {
            try state.apply(ClientOperation(clientOpID: "u4", operation: .clear), by: student, in: room)
        }
        _ = try accept(&state, teacher, "t3", .clear)
        #expect(state.strokes.isEmpty)
    }

    @Test("non-members and guests are refused what they may not do, and nothing changes")
    func permissions() throws {
        var state = RoomState()
        _ = try accept(&state, teacher, "t1", Self.stroke("s1"))
        let before = state
        var privateRoom = room
        privateRoom.isPublic = false
        #expect(throws: RoomError.self) { try state.apply(ClientOperation(clientOpID: "x", operation: Self.stroke("s9")), by: stranger, in: privateRoom) }
        #expect(!privateRoom.mayRead(stranger) && room.mayRead(guest) && !room.mayDraw(guest))
        #expect(throws: RoomError(.forbidden, "guests may only watch in room room-1")) {
            try state.apply(ClientOperation(clientOpID: "g1", operation: Self.stroke("s9")), by: guest, in: room)
        }
        #expect(throws: RoomError(.forbidden, "only its author or the room's owner may remove stroke s1")) {
            try state.apply(ClientOperation(clientOpID: "u1", operation: .removeStroke(id: "s1")), by: student, in: room)
        }
        #expect(throws: RoomError(.forbidden, "stroke s1 is someone else's")) {
            try state.apply(ClientOperation(clientOpID: "u2", operation: .extendStroke(id: "s1", points: [RoomPoint(0, 0, 0)])), by: student, in: room)
        }
        #expect(throws: RoomError.self) {
            try state.apply(ClientOperation(clientOpID: "g9", operation: Self.stroke("s8")), by: Participant(id: "guest:session-42"), in: room)
        }
        #expect(state == before)
        var open = room
        open.guestsMayDraw = true
        #expect(try state.apply(ClientOperation(clientOpID: "g2", operation: Self.stroke("s9")), by: guest, in: open) == .accepted(
            LoggedOperation(sequence: 2, author: "guest:session-42", clientOpID: "g2", operation: Self.stroke("s9"))))
    }

    @Test("bad operations: a clear error each, nothing changes")
    func badOperations() throws {
        var state = RoomState()
        _ = try accept(&state, teacher, "t1", Self.stroke("s1"))
        let before = state
        let bad: [(RoomOperation, String)] = [
            (.addStroke(id: "s2", points: [RoomPoint(.nan, 0, 0)], color: "#ff0000", width: 0.01), "not made of finite numbers"),
            (.addStroke(id: "s2", points: [RoomPoint(.infinity, 0, 0)], color: "#ff0000", width: 0.01), "not made of finite numbers"),
            (.addStroke(id: "s2", points: [RoomPoint(5000, 0, 0)], color: "#ff0000", width: 0.01), "from the room's origin"),
            (Self.stroke("s2", 501), "at most 500 points"),
            (Self.stroke("s2", color: "red"), "expected #rrggbb"),
            (.addStroke(id: "s2", points: [RoomPoint(0, 0, 0)], color: "#ff0000", width: 3), "width 3.0"),
            (Self.stroke("s1"), "exists already"),
            (Self.stroke("bad id!"), "1 to 64 letters"),
            (.addStroke(id: "s2", points: [], color: "#ff0000", width: 0.01), "at least one point"),
            (.addNote(id: "n1", text: "   ", anchor: .point(RoomPoint(0, 0, 0))), "1 to 500 characters"),
            (.addNote(id: "n1", text: String(repeating: "a", count: 501), anchor: .residue(chain: "A", number: 10)), "1 to 500 characters"),
            (.setMolecule(MoleculePlacement(moleculeID: "1AKE", transform: [1, 2, 3])), "16 finite numbers"),
            (.removeStroke(id: "nope"), "no stroke nope"),
        ]
        for (i, (op, message)) in bad.enumerated() {
            do {
                _ = try state.apply(ClientOperation(clientOpID: "b\(i)", operation: op), by: teacher, in: room)
                Issue.record("accepted \(op)")
            } catch {
                #expect(error.message.contains(message), "\(op): \(error.message)")
            }
        }
        #expect(state == before)
        // Script in a note is kept as the text it is.
        _ = try accept(&state, teacher, "t2", .addNote(id: "n1", text: "<script>alert(1)</script>", anchor: .residue(chain: "A", number: 12)))
        #expect(state.notes.first?.text == "<script>alert(1)</script>")
    }

    @Test("messages: operations round-trip as JSON; unknown types are named")
    func messages() throws {
        let ops: [RoomOperation] = [Self.stroke("s1"), .extendStroke(id: "s1", points: [RoomPoint(1, 2, 3)]), .removeStroke(id: "s1"), .undo, .clear,
                                .addNote(id: "n1", text: "active site", anchor: .residue(chain: "A", number: 12)),
                                .addNote(id: "n2", text: "here", anchor: .point(RoomPoint(0, 1, 0))), .removeNote(id: "n1"),
                                .setMolecule(MoleculePlacement(moleculeID: "1AKE")), .setMolecule(nil)]
        for op in ops {
            let data = try JSONEncoder().encode(ClientOperation(clientOpID: "c1", operation: op))
            #expect(try JSONDecoder().decode(ClientOperation.self, from: data).operation == op)
        }
        let unknown = Data(#"{"clientOpID": "c1", "operation": {"type": "teleport"}}"#.utf8)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(ClientOperation.self, from: unknown) }
        let text = Data(##"{"type": "add-stroke", "id": "s1", "points": [[0, 0, 0], [0.1, 0, 0]], "color": "#00ff00", "width": 0.004}"##.utf8)
        #expect(try JSONDecoder().decode(RoomOperation.self, from: text) == .addStroke(id: "s1", points: [RoomPoint(0, 0, 0), RoomPoint(0.1, 0, 0)], color: "#00ff00", width: 0.004))
    }

    @Test("the log's JSON written by hand is the sorted-keys encoder's, to the byte")
    func storedJSON() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var random = SystemRandomNumberGenerator()
        // Numbers of every kind the encoder writes differently from Swift's description: whole,
        // negative zero, tiny, huge, on the web app's 0.1 mm grid, and arbitrary.
        let special: [Double] = [0, -0.0, 1, -3, 0.1, 1e-5, 2.5e-7, 1e16, 1e21, 123456789, 0.30000000000000004, 5e-324, 1.5e300]
        func number() -> Double {
            switch Int.random(in: 0..<4, using: &random) {
            case 0: return special.randomElement(using: &random) ?? 0
            case 1: return Double(Int.random(in: -20_000...20_000, using: &random)) / 10_000
            case 2: return Double.random(in: -1000...1000, using: &random)
            default:  // any finite double (the room refuses others before they are logged)
                let v = Double(bitPattern: .random(in: 0...UInt64.max, using: &random))
                return v.isFinite ? v : 1
            }
        }
        func points() -> [RoomPoint] { (0..<Int.random(in: 0...5, using: &random)).map { _ in RoomPoint(number(), number(), number()) } }
        let names = ["s1", "stroke_7-x", "a/b", "quote\"d", "back\\slash", "tab\t", "é✓", "guest:g12"]
        for _ in 0..<2_000 {
            let op: RoomOperation = Bool.random(using: &random)
                ? .addStroke(id: names.randomElement(using: &random) ?? "s", points: points(), color: Bool.random() ? "#3366ff" : "red/x", width: number())
                : .extendStroke(id: names.randomElement(using: &random) ?? "s", points: points())
            let logged = LoggedOperation(sequence: .random(in: 0...UInt64.max, using: &random), author: names.randomElement(using: &random) ?? "a",
                                         clientOpID: names.randomElement(using: &random) ?? "c", operation: op)
            let want = String(decoding: try encoder.encode(logged), as: UTF8.self)
            #expect(try logged.storedJSON(encoder) == want)
        }
        let note = LoggedOperation(sequence: 3, author: "a", clientOpID: "c", operation: .addNote(id: "n", text: "x", anchor: .point(RoomPoint(0, 0, 0))))
        #expect(try note.storedJSON(encoder) == String(decoding: try encoder.encode(note), as: UTF8.self))
    }

    @Test("a snapshot and the log's tail give the same room as the whole log; replays are harmless")
    func snapshots() throws {
        var live = RoomState()
        var log: [LoggedOperation] = []
        for i in 0..<50 {
            log.append(try accept(&live, i % 2 == 0 ? teacher : student, "c\(i)", Self.stroke("s\(i)")))
            if i % 7 == 6 { log.append(try accept(&live, student, "undo\(i)", .undo)) }
        }
        var fromLog = RoomState()
        for op in log { fromLog.replay(op) }
        #expect(fromLog == live)
        let snapshot = try JSONDecoder().decode(RoomState.self, from: JSONEncoder().encode(Array(log.prefix(30)).reduce(into: RoomState()) { $0.replay($1) }))
        var lateJoiner = snapshot
        for op in log where op.sequence > snapshot.sequence { lateJoiner.replay(op) }
        for op in log { lateJoiner.replay(op) }  // again: nothing changes
        #expect(lateJoiner == live)
        // A resend after a restart from the snapshot is still recognised.
        #expect(try lateJoiner.apply(ClientOperation(clientOpID: "c48", operation: Self.stroke("s48")), by: teacher, in: room) == .duplicate(sequence: log.first { $0.clientOpID == "c48" }!.sequence))
    }

    @Test("the hand-written snapshot JSON decodes to the same state as the encoder's: strokes, notes, molecule, recent ids")
    func snapshotJSON() throws {
        var state = RoomState()
        for i in 0..<40 {
            let points = (0..<(i % 5 + 1)).map { RoomPoint(Double(i) * 0.0123 + Double($0) / 3, -1e-5 * Double($0), 999.5) }
            _ = try accept(&state, i % 2 == 0 ? teacher : student, "c\(i)", .addStroke(id: "s\(i)", points: points, color: "#3366FF", width: 0.0005))
            if i % 9 == 8 { _ = try accept(&state, student, "u\(i)", .undo) }
        }
        _ = try accept(&state, teacher, "note", .addNote(id: "n1", text: "a \"quoted\" note\\ with\nlines and ünïcode", anchor: .residue(chain: "A", number: 42)))
        _ = try accept(&state, teacher, "mol", .setMolecule(MoleculePlacement(moleculeID: "1AKE", style: "surface")))
        _ = try accept(&state, teacher, "show", .present(Presentation(lesson: "l42", step: 3, camera: "q0,0,0,1;d0.5;t0,0,0")))
        let decoded = try JSONDecoder().decode(RoomState.self, from: Data(try state.snapshotJSON().utf8))
        #expect(decoded == state)
        #expect(try JSONDecoder().decode(RoomState.self, from: JSONEncoder().encode(state)) == decoded)
        // The recent client ids came through: a resend is still recognised.
        var copy = decoded
        #expect(try copy.apply(ClientOperation(clientOpID: "c3", operation: Self.stroke("s3")), by: student, in: room) == .duplicate(sequence: 4))
    }

    @Test("a lesson presented: the owner's alone, checked, kept in the state, ended with an empty present")
    func presenting() throws {
        var state = RoomState()
        let shown = Presentation(lesson: "l0123456789abcdef0123", step: 2, camera: "q0.1,0.2,0.3,0.9274;d0.8;t0,0.1,-0.05")
        _ = try accept(&state, teacher, "p1", .present(shown))
        #expect(state.presentation == shown)
        #expect(RoomStateJSON(state).presentation == shown)
        for actor in [student, guest] {
            #expect(throws: RoomError.self) { _ = try accept(&state, actor, "p-\(actor.id)", .present(Presentation(lesson: "l1", step: 0))) }
        }
        let bad: [(Presentation, String)] = [
            (Presentation(lesson: "l1", step: -1), "numbered 0 to 39"),
            (Presentation(lesson: "l1", step: 40), "numbered 0 to 39"),
            (Presentation(lesson: "l 1", step: 0), "lesson id"),
            (Presentation(lesson: "l1", step: 0, camera: "q0;<script>"), "camera"),
            (Presentation(lesson: "l1", step: 0, camera: String(repeating: "1", count: 201)), "camera"),
            (Presentation(lesson: "l1", step: 0, camera: ""), "camera"),
        ]
        for (presentation, words) in bad {
            do {
                _ = try accept(&state, teacher, "bad", .present(presentation))
                Issue.record("accepted \(presentation)")
            } catch let error as RoomError {
                #expect(error.message.contains(words), "\(error.message)")
            }
        }
        #expect(state.presentation == shown, "nothing changed by the refused ones")
        _ = try accept(&state, teacher, "p2", .present(nil))
        #expect(state.presentation == nil)
        let text = String(decoding: try RoomWire.encoder.encode(ClientOperation(clientOpID: "x", operation: .present(shown))), as: UTF8.self)
        #expect(text.contains(#""presentation":{"camera":"q0.1,0.2,0.3,0.9274;d0.8;t0,0.1,-0.05","lesson":"l0123456789abcdef0123","step":2},"type":"present""#))
    }

    @Test("the one JSON string escaper reads back as the text, for every control character, quotes, backslashes and UTF-8")
    func jsonStrings() throws {
        let texts = [String(decoding: (0..<0x20).map { UInt8($0) }, as: UTF8.self), "a \"b\" \\ c/d", "ünïcode 漢 🧬", "", "plain-id_42"]
        for text in texts {
            let quoted = JSONString.quoted(text)
            #expect(try JSONDecoder().decode(String.self, from: Data(quoted.utf8)) == text, "\(quoted)")
            var buffer = TextBuffer()
            buffer.quoted(text, escapingControls: true)
            #expect(String(decoding: buffer.bytes, as: UTF8.self) == quoted)
        }
        #expect(JSONString.quoted("a\u{0}b\n") == #""a\u0000b\n""#)
    }
}
