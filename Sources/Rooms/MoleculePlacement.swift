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
