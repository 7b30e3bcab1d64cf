import Molecule
import SceneExport

/// How a molecule is drawn. `auto` follows Mol*'s default: cartoon for polymers, ball-and-stick for
/// ligands, water hidden.
public enum Representation: String, CaseIterable, Sendable {
    case auto, cartoon, ballAndStick = "ball-and-stick", spacefill, sticks, backbone, surface

    public init(argument: String) throws {
        guard let r = Representation(rawValue: argument.lowercased()) else {
            throw MeshOptionError("unknown style '\(argument)'; accepted: \(Representation.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        self = r
    }

    /// Triangles this representation makes for the context (an upper bound).
    func estimatedTriangles(_ ctx: MeshContext) -> Int {
        switch self {
        case .cartoon: return Cartoon.estimatedTriangles(ctx)
        case .ballAndStick: return BallAndStick.estimatedTriangles(ctx)
        case .spacefill: return Spacefill.estimatedTriangles(ctx)
        case .sticks: return Sticks.estimatedTriangles(ctx)
        case .backbone: return BackboneTrace.estimatedTriangles(ctx)
        case .surface: return MolecularSurface.estimatedTriangles(ctx)
        case .auto: return 0
        }
    }

    func build(_ ctx: MeshContext) -> TriangleMesh {
        switch self {
        case .cartoon: return Cartoon.build(ctx)
        case .ballAndStick: return BallAndStick.build(ctx)
        case .spacefill: return Spacefill.build(ctx)
        case .sticks: return Sticks.build(ctx)
        case .backbone: return BackboneTrace.build(ctx)
        case .surface: return MolecularSurface.build(ctx)
        case .auto: return TriangleMesh(name: "empty")
        }
    }
}

/// A bad style, colour or selection value, with what is accepted.
public struct MeshOptionError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ d: String) { description = d }
}
