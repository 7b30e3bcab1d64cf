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

    /// The style as people read it, in menus: "Ball and stick".
    public var displayName: String {
        switch self {
        case .auto: return "Automatic"
        case .cartoon: return "Cartoon"
        case .ballAndStick: return "Ball and stick"
        case .spacefill: return "Spacefill"
        case .sticks: return "Sticks"
        case .backbone: return "Backbone"
        case .surface: return "Surface"
        }
    }

    /// How far the drawn surface reaches past the atom centres, in Å (a cartoon's ribbon, a
    /// sphere's radius, the probe's shell): the model's box is that much bigger than the atoms' box
    /// on every side. A page that places a point on a residue of the model needs it.
    public var reachAngstroms: Float {
        switch self {
        case .auto, .cartoon: return 1.5
        case .ballAndStick, .backbone: return 0.5
        case .spacefill: return 1.8
        case .sticks: return 0.3
        case .surface: return 3
        }
    }

    /// Drawn along the chain's trace (Cα, or P for nucleic acids), side chains and ligands left
    /// out: its box is the trace's box, not the atoms'.
    public var followsTrace: Bool { self == .cartoon || self == .backbone }

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
