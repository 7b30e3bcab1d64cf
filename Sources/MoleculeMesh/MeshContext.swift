import Molecule
import SceneExport

/// Everything a representation needs to turn one model into triangles: what to draw, in which
/// colours, and how finely. Coordinates stay in Å here; the scene builder scales to metres.
public struct MeshContext: Sendable {
    public let structure: Structure
    public let model: Model
    /// Linear RGBA per atom, from the colour scheme (highlighting already applied).
    public let atomColors: [SIMD4<Float>]
    /// Whether each atom is drawn (selection and hidden groups applied).
    public let visible: [Bool]
    /// One code per residue of `model`.
    public let secondaryStructure: [SecondaryStructureCode]
    public let bonds: BondList
    /// Tessellation level, 0 (coarsest) to 4 (finest); the level-of-detail search lowers it to fit
    /// the triangle budget.
    public var detail: Int

    public init(structure: Structure, model: Model, atomColors: [SIMD4<Float>], visible: [Bool],
                secondaryStructure: [SecondaryStructureCode], bonds: BondList, detail: Int) {
        self.structure = structure; self.model = model; self.atomColors = atomColors; self.visible = visible
        self.secondaryStructure = secondaryStructure; self.bonds = bonds; self.detail = detail
    }
}

/// A representation's output: triangles with per-vertex colours, in Å, with one part (material 0).
public typealias MoleculeMeshPart = TriangleMesh
