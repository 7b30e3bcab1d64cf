/// A point in room coordinates (metres), as strokes and notes use them.
public struct RoomPoint: Sendable, Equatable, Codable {
    public var x: Double, y: Double, z: Double
    public init(_ x: Double, _ y: Double, _ z: Double) { self.x = x; self.y = y; self.z = z }

    var isFinite: Bool { x.isFinite && y.isFinite && z.isFinite }

    /// Points travel as [x, y, z] arrays: compact, and what the web client draws from.
    public init(from decoder: Decoder) throws {
        var c = try decoder.unkeyedContainer()
        x = try c.decode(Double.self); y = try c.decode(Double.self); z = try c.decode(Double.self)
        guard c.isAtEnd else { throw DecodingError.dataCorruptedError(in: c, debugDescription: "a point has three numbers") }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.unkeyedContainer()
        try c.encode(x); try c.encode(y); try c.encode(z)
    }
}

