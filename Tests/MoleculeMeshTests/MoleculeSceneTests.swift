import Foundation
import Testing
@testable import MoleculeMesh
import Molecule
import SceneExport

@Suite("Molecule scenes: layers, budget, placement, assemblies")
struct MoleculeSceneTests {
    @Test("auto style: cartoon for the protein, on the table, 0.3 m across")
    func autoStyle() throws {
        let s = try MeshFixtures.load("4JSV.pdb.gz")
        let (scene, report) = try MoleculeSceneBuilder.build(s, options: MoleculeSceneOptions())
        #expect(report.layers.contains("cartoon"))
        #expect(report.layers.contains("ball-and-stick"))  // ADP and Mg
        #expect(scene.triangleCount <= 300_000)
        let (lo, hi) = try #require(scene.worldBounds())
        #expect(abs(lo.y) < 1e-4)
        #expect(abs(max(hi.x - lo.x, hi.y - lo.y, hi.z - lo.z) - 0.3) < 1e-3)
        #expect(abs((lo.x + hi.x) / 2) < 1e-3 && abs((lo.z + hi.z) / 2) < 1e-3)
        #expect(throws: Never.self) { try scene.validate() }
    }

    @Test("the triangle budget holds by lowering detail and then the style", arguments: [20_000, 100_000, 300_000])
    func budget(limit: Int) throws {
        let s = try MeshFixtures.load("2XHE.cif.gz")
        var options = MoleculeSceneOptions()
        options.representation = .spacefill
        options.maxTriangles = limit
        let (scene, report) = try MoleculeSceneBuilder.build(s, options: options)
        #expect(scene.triangleCount <= limit)
        #expect(scene.triangleCount > 0)
        if limit < 100_000 { #expect(!report.notes.isEmpty) }
    }

    @Test("the 7CTH 60-mer: one mesh per chain group placed by 60 nodes, within budget, a tenth of the baked size")
    func virusAssembly() throws {
        let s = try MeshFixtures.load("mmcif_7cth.cif.gz")
        var options = MoleculeSceneOptions()
        options.assembly = "1"
        let (scene, report) = try MoleculeSceneBuilder.build(s, options: options)
        #expect(report.instances == 60)
        #expect(scene.triangleCount <= 300_000)
        #expect(scene.nodes.count >= 60)
        #expect(scene.meshes.count * 60 <= scene.nodes.count * 2)
        // Without instancing: every node's mesh written as its own copy.
        var baked = TriangleScene(name: "baked")
        baked.materials = scene.materials
        for node in scene.nodes {
            baked.meshes.append(scene.meshes[node.mesh])
            baked.nodes.append(Node(name: node.name, mesh: baked.meshes.count - 1, transform: node.transform))
        }
        #expect(GLBWriter.write(scene).count * 10 <= GLBWriter.write(baked).count)
    }

    @Test("bad requests explain themselves")
    func badRequests() throws {
        let hem = try MeshFixtures.load("HEM.cif")
        var cartoon = MoleculeSceneOptions()
        cartoon.representation = .cartoon
        #expect(throws: MeshOptionError.self) { try MoleculeSceneBuilder.build(hem, options: cartoon) }
        let ake = try MeshFixtures.load("pdb1ake.pdb")
        var nothing = MoleculeSceneOptions()
        nothing.selection = "Z:1-5"
        #expect(throws: MeshOptionError.self) { try MoleculeSceneBuilder.build(ake, options: nothing) }
        #expect(throws: MeshOptionError.self) { try Representation(argument: "ribbons") }
        #expect(throws: MeshOptionError.self) { try HiddenGroup.parse("water,fish") }
    }
}
