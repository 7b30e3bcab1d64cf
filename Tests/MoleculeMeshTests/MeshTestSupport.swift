import Molecule
import MoleculeMesh
import SceneExport

enum MeshFixtures {
    static func path(_ name: String) -> String {
        let here = "\(#filePath)"
        let dir = here[..<here.lastIndex(of: "/")!]
        return dir + "/../Fixtures/structures/" + name
    }

    static func load(_ name: String) throws -> Structure { try StructureReader.read(contentsOf: path(name)) }

    /// 1AKE's first model as a context with element colours, everything visible.
    static func context1AKE(detail: Int = 2, visible: ((Model) -> [Bool])? = nil,
                            scheme: ColorScheme = .element) throws -> MeshContext {
        let s = try load("pdb1ake.pdb")
        let m = s.models[0]
        let ss = s.secondaryStructure()
        return MeshContext(structure: s, model: m, atomColors: scheme.atomColors(for: m, in: s, secondaryStructure: ss),
                           visible: visible?(m) ?? [Bool](repeating: true, count: m.atomCount),
                           secondaryStructure: ss, bonds: BondBuilder.bonds(of: m, in: s), detail: detail)
    }
}
