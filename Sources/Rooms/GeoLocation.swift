/// Where a room is on Earth, for the map of rooms.
public struct GeoLocation: Sendable, Equatable, Codable {
    public var latitude: Double
    public var longitude: Double
    public init(latitude: Double, longitude: Double) { self.latitude = latitude; self.longitude = longitude }

    public var isValid: Bool { (-90...90).contains(latitude) && (-180...180).contains(longitude) }
}
