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

    /// Problems with a mesh: unit normals, indices in range, array lengths, colours in 0...1.
    static func problems(_ mesh: TriangleMesh) -> [String] {
        var out: [String] = []
        if mesh.normals.count != mesh.vertexCount { out.append("normals count") }
        if mesh.colors.count != mesh.vertexCount { out.append("colors count") }
        if mesh.indices.count % 3 != 0 { out.append("indices not triangles") }
        if mesh.indices.contains(where: { Int($0) >= mesh.vertexCount }) { out.append("index out of range") }
        if mesh.normals.contains(where: { n in abs((n * n).sum().squareRoot() - 1) > 1e-4 }) { out.append("normal not unit") }
        if mesh.colors.contains(where: { c in c.min() < 0 || c.max() > 1 }) { out.append("colour out of 0...1") }
        if mesh.triangleCount > 0 && mesh.parts != [TriangleMesh.Part(triangles: 0..<mesh.triangleCount, material: 0)] {
            out.append("parts")
        }
        var scene = TriangleScene()
        scene.meshes = [mesh]
        scene.materials = [Material(name: "m", baseColor: SIMD4(1, 1, 1, 1))]
        scene.nodes = [Node(name: "n", mesh: 0)]
        do { try scene.validate() } catch { out.append("validate: \(error)") }
        return out
    }
}
