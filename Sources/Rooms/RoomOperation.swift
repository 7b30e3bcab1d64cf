/// What a room's log holds: every change to its content, in the order the server accepted it.
/// Clients send these with ids of their own (`ClientOperation`); the server numbers them.
public enum RoomOperation: Sendable, Equatable, Codable {
    /// A new stroke with its first points.
    case addStroke(id: String, points: [RoomPoint], color: String, width: Double)
    /// More points for a stroke being drawn.
    case extendStroke(id: String, points: [RoomPoint])
    /// Removes one stroke as a whole (its author or the owner).
    case removeStroke(id: String)
    /// Removes the sender's own most recent stroke: undo. The server turns it into `removeStroke`.
    case undo
    /// Empties the room (owner only).
    case clear
    case addNote(id: String, text: String, anchor: NoteAnchor)
    case removeNote(id: String)
    case setMolecule(MoleculePlacement?)
    /// The lesson step (and camera) the owner presents, or none: the presentation ends (owner only).
    case present(Presentation?)

    private enum CodingKeys: String, CodingKey { case type, id, points, color, width, text, anchor, molecule, presentation }

    /// Points the operation carries (what checking and storing it cost grows with).
    public var pointCount: Int {
        switch self {
        case let .addStroke(_, points, _, _), let .extendStroke(_, points): return points.count
        default: return 0
        }
    }

    /// The names of the operation types, as messages carry them in `type`.
    public static let typeNames = ["add-stroke", "extend-stroke", "remove-stroke", "undo", "clear", "add-note", "remove-note", "set-molecule", "present"]

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let type = try c.decode(String.self, forKey: .type)
        switch type {
        case "add-stroke":
            self = .addStroke(id: try c.decode(String.self, forKey: .id), points: try c.decode([RoomPoint].self, forKey: .points),
                              color: try c.decode(String.self, forKey: .color), width: try c.decode(Double.self, forKey: .width))
        case "extend-stroke":
            self = .extendStroke(id: try c.decode(String.self, forKey: .id), points: try c.decode([RoomPoint].self, forKey: .points))
        case "remove-stroke": self = .removeStroke(id: try c.decode(String.self, forKey: .id))
        case "undo": self = .undo
        case "clear": self = .clear
        case "add-note":
            self = .addNote(id: try c.decode(String.self, forKey: .id), text: try c.decode(String.self, forKey: .text),
                            anchor: try c.decode(NoteAnchor.self, forKey: .anchor))
        case "remove-note": self = .removeNote(id: try c.decode(String.self, forKey: .id))
        case "set-molecule": self = .setMolecule(try c.decodeIfPresent(MoleculePlacement.self, forKey: .molecule))
        case "present": self = .present(try c.decodeIfPresent(Presentation.self, forKey: .presentation))
        default:
            throw DecodingError.dataCorruptedError(forKey: .type, in: c,
                debugDescription: "unknown operation type '\(type.prefix(40))'; accepted: \(Self.typeNames.joined(separator: ", "))")
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case let .addStroke(id, points, color, width):
            try c.encode("add-stroke", forKey: .type); try c.encode(id, forKey: .id); try c.encode(points, forKey: .points)
            try c.encode(color, forKey: .color); try c.encode(width, forKey: .width)
        case let .extendStroke(id, points):
            try c.encode("extend-stroke", forKey: .type); try c.encode(id, forKey: .id); try c.encode(points, forKey: .points)
        case let .removeStroke(id): try c.encode("remove-stroke", forKey: .type); try c.encode(id, forKey: .id)
        case .undo: try c.encode("undo", forKey: .type)
        case .clear: try c.encode("clear", forKey: .type)
        case let .addNote(id, text, anchor):
            try c.encode("add-note", forKey: .type); try c.encode(id, forKey: .id); try c.encode(text, forKey: .text)
            try c.encode(anchor, forKey: .anchor)
        case let .removeNote(id): try c.encode("remove-note", forKey: .type); try c.encode(id, forKey: .id)
        case let .setMolecule(placement): try c.encode("set-molecule", forKey: .type); try c.encodeIfPresent(placement, forKey: .molecule)
        case let .present(presentation): try c.encode("present", forKey: .type); try c.encodeIfPresent(presentation, forKey: .presentation)
        }
    }
}

/// What a note is pinned to: a point in the room, or a residue of the room's molecule.
public enum NoteAnchor: Sendable, Equatable, Codable {
    case point(RoomPoint)
    case residue(chain: String, number: Int)

    private enum CodingKeys: String, CodingKey { case point, chain, residue }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        if let p = try c.decodeIfPresent(RoomPoint.self, forKey: .point) {
            self = .point(p)
        } else {
            self = .residue(chain: try c.decode(String.self, forKey: .chain), number: try c.decode(Int.self, forKey: .residue))
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .point(let p): try c.encode(p, forKey: .point)
        case let .residue(chain, number): try c.encode(chain, forKey: .chain); try c.encode(number, forKey: .residue)
        }
    }
}

/// An operation as a client sends it: its own id (so a resend is recognised) and the change.
public struct ClientOperation: Sendable, Equatable, Codable {
    public var clientOpID: String
    public var operation: RoomOperation
    public init(clientOpID: String, operation: RoomOperation) { self.clientOpID = clientOpID; self.operation = operation }
}

/// An operation the room accepted: its place in the room's order, who sent it, under which id.
public struct LoggedOperation: Sendable, Equatable, Codable {
    public var sequence: UInt64
    public var author: String
    public var clientOpID: String
    public var operation: RoomOperation
    public init(sequence: UInt64, author: String, clientOpID: String, operation: RoomOperation) {
        self.sequence = sequence; self.author = author; self.clientOpID = clientOpID; self.operation = operation
    }
}
