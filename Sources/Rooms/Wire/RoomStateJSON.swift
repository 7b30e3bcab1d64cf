/// A room's content as clients receive it (`GET /api/rooms/{id}/state`, a welcome's `snapshot`):
/// without the server's bookkeeping of recent client ids.
public struct RoomStateJSON: Codable, Sendable, Equatable {
    public var sequence: UInt64
    public var strokes: [Stroke]
    public var notes: [Note]
    public var molecule: MoleculePlacement?
    public var presentation: Presentation?
    public init(_ s: RoomState) {
        sequence = s.sequence; strokes = s.strokes; notes = s.notes; molecule = s.molecule; presentation = s.presentation
    }
}
