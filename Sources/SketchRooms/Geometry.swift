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

/// Where a room is on Earth, for the map of rooms.
public struct GeoLocation: Sendable, Equatable, Codable {
    public var latitude: Double
    public var longitude: Double
    public init(latitude: Double, longitude: Double) { self.latitude = latitude; self.longitude = longitude }

    public var isValid: Bool { (-90...90).contains(latitude) && (-180...180).contains(longitude) }
}

/// The molecule a room draws around: a library id, its style, and where it stands (a column-major
/// 4×4 matrix, room coordinates).
public struct MoleculePlacement: Sendable, Equatable, Codable {
    public var moleculeID: String
    public var style: String
    public var transform: [Double]
    public init(moleculeID: String, style: String = "cartoon", transform: [Double] = MoleculePlacement.identity) {
        self.moleculeID = moleculeID; self.style = style; self.transform = transform
    }
    public static let identity: [Double] = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]
}
