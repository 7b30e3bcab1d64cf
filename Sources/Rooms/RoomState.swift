import Foundation

/// A stroke as the room holds it.
public struct Stroke: Sendable, Equatable, Codable {
    public var id: String
    public var author: String
    public var color: String
    public var width: Double
    public var points: [RoomPoint]
}

/// A text note pinned to a point or a residue. Its text is plain text, always shown as text.
public struct Note: Sendable, Equatable, Codable {
    public var id: String
    public var author: String
    public var text: String
    public var anchor: NoteAnchor
}

/// A room's content and the last sequence number applied: what a late joiner receives as a
/// snapshot, and what a server keeps to load a long log fast. Applying an operation is the only way
/// to change it, and an operation is checked in full before anything changes.
public struct RoomState: Sendable, Equatable, Codable {
    public static let maximumPointsPerStroke = 5_000
    public static let maximumPointsPerMessage = 500
    public static let maximumStrokes = 20_000
    /// All strokes' points together: what bounds a room's memory (about 40 MB).
    public static let maximumPointsPerRoom = 1_000_000
    public static let maximumNotes = 1_000
    public static let maximumNoteLength = 500
    public static let widthRange = 0.0005...0.05          // metres: half a millimetre to 5 cm
    public static let coordinateLimit = 1_000.0            // metres from the room's origin
    static let rememberedClientIDs = 4_096

    public private(set) var sequence: UInt64 = 0
    public private(set) var strokes: [Stroke] = []
    public private(set) var notes: [Note] = []
    public private(set) var molecule: MoleculePlacement?
    /// The lesson step the owner presents, if any (`present`).
    public private(set) var presentation: Presentation?
    public private(set) var totalPoints = 0
    /// Recent (author, client id) pairs and the sequence each got, so a resend is answered with the
    /// original sequence instead of being applied twice; kept in order, oldest dropped first.
    var recent: [String: UInt64] = [:]
    var recentOrder: [String] = []

    public init() {}

    public enum Outcome: Sendable, Equatable {
        /// Accepted and numbered: store it, then acknowledge and broadcast it.
        case accepted(LoggedOperation)
        /// Seen before (a resend): nothing changes; the sender is told its original sequence.
        case duplicate(sequence: UInt64)
    }

    /// Checks `op` from `actor` against the room's rules, then applies it under the next sequence
    /// number. Throws, changing nothing, when the operation is not allowed or not valid.
    public mutating func apply(_ op: ClientOperation, by actor: Participant, in room: RoomSettings) throws(RoomError) -> Outcome {
        let outcome = try validate(op, by: actor, in: room)
        if case .accepted(let logged) = outcome { replay(logged) }
        return outcome
    }

    /// What `apply` would do, changing nothing: a host checks, stores, and only then applies (in
    /// place, without copying the room).
    public func validate(_ op: ClientOperation, by actor: Participant, in room: RoomSettings) throws(RoomError) -> Outcome {
        try Self.checkID(op.clientOpID, what: "client operation id")
        // Plain ids only: an account can never pass for a guest ("guest:…") or for another author.
        try Self.checkID(actor.id, what: "user id")
        let key = "\(actor.isGuest ? "guest:" : "")\(actor.id)\u{0}\(op.clientOpID)"
        if let seen = recent[key] { return .duplicate(sequence: seen) }
        guard let role = room.role(of: actor) else { throw RoomError(.forbidden, "you are not a member of room \(room.id)") }
        let resolved = try check(op.operation, by: actor, role: role, room: room)
        let logged = LoggedOperation(sequence: sequence + 1, author: actor.isGuest ? "guest:\(actor.id)" : actor.id,
                                     clientOpID: op.clientOpID, operation: resolved)
        return .accepted(logged)
    }

    /// Applies an operation the room already accepted (from the log, or from another server).
    /// Operations at or below the current sequence are ignored, so replays are harmless.
    public mutating func replay(_ logged: LoggedOperation) {
        guard logged.sequence > sequence else { return }
        sequence = logged.sequence
        remember("\(logged.author)\u{0}\(logged.clientOpID)", logged.sequence)
        switch logged.operation {
        case let .addStroke(id, points, color, width):
            strokes.append(Stroke(id: id, author: logged.author, color: color, width: width, points: points))
            totalPoints += points.count
        case let .extendStroke(id, points):
            if let i = strokes.lastIndex(where: { $0.id == id }) { strokes[i].points += points; totalPoints += points.count }
        case let .removeStroke(id):
            totalPoints -= strokes.filter { $0.id == id }.reduce(0) { $0 + $1.points.count }
            strokes.removeAll { $0.id == id }
        case .undo:
            break  // never logged: accepted as the stroke it removes
        case .clear:
            strokes.removeAll(); notes.removeAll(); totalPoints = 0
        case let .addNote(id, text, anchor):
            notes.append(Note(id: id, author: logged.author, text: text, anchor: anchor))
        case let .removeNote(id):
            notes.removeAll { $0.id == id }
        case let .setMolecule(placement):
            molecule = placement
        case let .present(shown):
            presentation = shown
        }
    }

    private mutating func remember(_ key: String, _ sequence: UInt64) {
        if recent.updateValue(sequence, forKey: key) == nil { recentOrder.append(key) }
        if recentOrder.count > Self.rememberedClientIDs {
            let drop = recentOrder.count - Self.rememberedClientIDs
            for old in recentOrder.prefix(drop) { recent.removeValue(forKey: old) }
            recentOrder.removeFirst(drop)
        }
    }

    // MARK: Rules

    /// The operation as it will be logged (undo becomes the removal it means), or why not.
    private func check(_ operation: RoomOperation, by actor: Participant, role: RoomSettings.Role, room: RoomSettings) throws(RoomError) -> RoomOperation {
        let author = actor.isGuest ? "guest:\(actor.id)" : actor.id
        func mustDraw() throws(RoomError) {
            guard room.mayDraw(actor) else {
                throw RoomError(.forbidden, role == .guest ? "guests may only watch in room \(room.id)" : "you may not draw in room \(room.id)")
            }
        }
        switch operation {
        case let .addStroke(id, points, color, width):
            try mustDraw()
            try Self.checkID(id, what: "stroke id")
            guard !strokes.contains(where: { $0.id == id }) else { throw RoomError(.invalid, "stroke \(id) exists already") }
            guard strokes.count < Self.maximumStrokes else { throw RoomError(.invalid, "the room holds \(Self.maximumStrokes) strokes, its limit") }
            guard !points.isEmpty else { throw RoomError(.invalid, "a stroke needs at least one point") }
            try Self.checkPoints(points)
            try checkRoomFor(points)
            guard Self.isColor(color) else { throw RoomError(.invalid, "colour '\(color.prefix(20))': expected #rrggbb") }
            guard width.isFinite, Self.widthRange.contains(width) else {
                throw RoomError(.invalid, "width \(width): expected \(Self.widthRange.lowerBound) to \(Self.widthRange.upperBound) metres")
            }
            return operation
        case let .extendStroke(id, points):
            try mustDraw()
            guard let stroke = strokes.last(where: { $0.id == id }) else { throw RoomError(.notFound, "no stroke \(id.prefix(64)) in this room") }
            guard stroke.author == author else { throw RoomError(.forbidden, "stroke \(id) is someone else's") }
            try Self.checkPoints(points)
            try checkRoomFor(points)
            guard stroke.points.count + points.count <= Self.maximumPointsPerStroke else {
                throw RoomError(.invalid, "a stroke has at most \(Self.maximumPointsPerStroke) points")
            }
            return operation
        case let .removeStroke(id):
            try mustDraw()
            guard let stroke = strokes.last(where: { $0.id == id }) else { throw RoomError(.notFound, "no stroke \(id.prefix(64)) in this room") }
            guard stroke.author == author || role == .owner else { throw RoomError(.forbidden, "only its author or the room's owner may remove stroke \(id)") }
            return operation
        case .undo:
            try mustDraw()
            guard let mine = strokes.last(where: { $0.author == author }) else { throw RoomError(.notFound, "you have no stroke to undo") }
            return .removeStroke(id: mine.id)
        case .clear:
            guard role == .owner else { throw RoomError(.forbidden, "only the room's owner may clear it") }
            return operation
        case let .addNote(id, text, anchor):
            try mustDraw()
            try Self.checkID(id, what: "note id")
            guard !notes.contains(where: { $0.id == id }) else { throw RoomError(.invalid, "note \(id) exists already") }
            guard notes.count < Self.maximumNotes else { throw RoomError(.invalid, "the room holds \(Self.maximumNotes) notes, its limit") }
            let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !trimmed.isEmpty, text.count <= Self.maximumNoteLength else {
                throw RoomError(.invalid, "a note has 1 to \(Self.maximumNoteLength) characters")
            }
            if case .point(let p) = anchor { try Self.checkPoints([p]) }
            return operation
        case let .removeNote(id):
            try mustDraw()
            guard let note = notes.first(where: { $0.id == id }) else { throw RoomError(.notFound, "no note \(id.prefix(64)) in this room") }
            guard note.author == author || role == .owner else { throw RoomError(.forbidden, "only its author or the room's owner may remove note \(id)") }
            return operation
        case let .setMolecule(placement):
            guard role != .guest else { throw RoomError(.forbidden, "guests may not change the room's molecule") }
            if let placement {
                try Self.checkID(placement.moleculeID, what: "molecule id")
                guard placement.transform.count == 16, placement.transform.allSatisfy({ $0.isFinite && abs($0) <= Self.coordinateLimit }) else {
                    throw RoomError(.invalid, "a placement is 16 finite numbers (a column-major 4×4 matrix)")
                }
            }
            return operation
        case let .present(shown):
            guard role == .owner else { throw RoomError(.forbidden, "only the room's owner presents a lesson in room \(room.id)") }
            try shown?.check()
            return operation
        }
    }

    static func checkID(_ id: String, what: String) throws(RoomError) {
        guard (1...64).contains(id.utf8.count), id.utf8.allSatisfy({ isIDByte($0) }) else {
            throw RoomError(.invalid, "\(what) '\(id.prefix(64))': 1 to 64 letters, digits, '-' or '_'")
        }
    }

    /// Letters, digits, '-' and '_': what ids (and guest keys) are made of.
    public static func isIDByte(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x2D || b == 0x5F
    }

    func checkRoomFor(_ points: [RoomPoint]) throws(RoomError) {
        guard totalPoints + points.count <= Self.maximumPointsPerRoom else {
            throw RoomError(.invalid, "the room holds \(Self.maximumPointsPerRoom) points, its limit: clear or undo some strokes")
        }
    }

    static func checkPoints(_ points: [RoomPoint]) throws(RoomError) {
        guard points.count <= maximumPointsPerMessage else {
            throw RoomError(.invalid, "at most \(maximumPointsPerMessage) points in one message")
        }
        for (i, p) in points.enumerated() {
            guard p.isFinite else { throw RoomError(.invalid, "point \(i + 1) is not made of finite numbers") }
            guard abs(p.x) <= coordinateLimit, abs(p.y) <= coordinateLimit, abs(p.z) <= coordinateLimit else {
                throw RoomError(.invalid, "point \(i + 1) is more than \(Int(coordinateLimit)) m from the room's origin")
            }
        }
    }

    static func isColor(_ s: String) -> Bool {
        let u = Array(s.utf8)
        return u.count == 7 && u[0] == 0x23 && u[1...].allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) || ($0 >= 0x41 && $0 <= 0x46) }
    }
}
