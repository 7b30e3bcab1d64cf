import MoleculeMesh
import SceneExport

/// What `ModelRequest` accepts, for pages and clients to build their menus from (the server
/// publishes it at `GET /api/model-options`): the styles with their names and what a page needs to
/// place a point on one (how far the surface reaches past the atoms, whether it follows the
/// trace), the colour schemes, the groups that can be hidden, the formats, the targets and their
/// triangle budgets, the option names, and the limits. A new style or scheme reaches every menu
/// from the engine's enums, here and nowhere else.
public struct ModelOptionsDescription: Encodable, Sendable {
    public struct Style: Encodable, Sendable {
        public var id: String
        public var name: String
        public var reachAngstroms: Float
        public var followsTrace: Bool
    }
    public struct Named: Encodable, Sendable {
        public var id: String
        public var name: String
    }
    public struct TargetBudget: Encodable, Sendable {
        public var id: String
        public var triangles: Int
    }
    public struct Bounds: Encodable, Sendable {
        public var triangles: [Int]
        public var metres: [Float]
        public var pictureSizes: [Int]?
        public var selectionCharacters: Int
    }

    public var styles: [Style]
    public var colors: [Named]
    public var hide: [String]
    public var formats: [String]
    public var targets: [TargetBudget]
    public var options: [String]
    public var limits: Bounds

    public init(limits: ModelRequest.Limits) {
        styles = Representation.allCases.map {
            Style(id: $0.rawValue, name: $0.displayName, reachAngstroms: $0.reachAngstroms, followsTrace: $0.followsTrace)
        }
        colors = ColorScheme.allCases.map { Named(id: $0.rawValue, name: $0.displayName) }
        hide = HiddenGroup.allCases.map(\.rawValue)
        formats = ModelFormat.allCases.filter { $0 != .mtl }.map(\.rawValue)
        targets = ModelRequest.Target.allCases.map { TargetBudget(id: $0.rawValue, triangles: $0.triangleBudget) }
        options = ModelRequest.Option.allCases.map(\.rawValue)
        self.limits = Bounds(triangles: [limits.triangles.lowerBound, limits.triangles.upperBound],
                             metres: [limits.metres.lowerBound, limits.metres.upperBound],
                             pictureSizes: limits.pictureSizes, selectionCharacters: limits.selectionCharacters)
    }
}
