import Testing
@testable import MoleculeMesh
import Molecule
import SceneExport

/// Two structures in one scene (Sources/MoleculeMesh/ComparisonScene.swift): the first where its own
/// scene puts it, in its colour, its vertices naming its atoms; the other in its colour naming
/// nothing; and the morph's frames naming the first structure's atoms.
@Suite("Two structures in one scene")
struct ComparisonSceneTests {
    @Test("compare: two colours, the first's features kept and placed as alone, the other's none")
    func compare() throws {
        let closed = try MeshFixtures.load("pdb1ake.pdb"), open = try MeshFixtures.load("adk_open.pdb.gz")
        var options = MoleculeSceneOptions()
        options.representation = .cartoon
        let fit = try Superposition.superpose(open, onto: closed)
        let (scene, _) = try ComparisonScene.compare(closed, with: open, superposition: fit, options: options)
        let first = SRGB.linear(hex: UInt32(ComparisonScene.colors.first)), other = SRGB.linear(hex: UInt32(ComparisonScene.colors.other))
        let own = scene.meshes.filter { !$0.name.hasPrefix("other-") }, theirs = scene.meshes.filter { $0.name.hasPrefix("other-") }
        #expect(!own.isEmpty && !theirs.isEmpty)
        #expect(own.allSatisfy { $0.colors.allSatisfy { $0 == first } && $0.features.contains { $0 != TriangleMesh.noFeature } })
        #expect(theirs.allSatisfy { $0.colors.allSatisfy { $0 == other } && $0.features.allSatisfy { $0 == TriangleMesh.noFeature } })
        // The pair stands on the ground (y from 0), 0.3 m at its longest, as any scene.
        let (lo, hi) = try #require(scene.worldBounds())
        #expect(abs(lo.y) < 1e-5 && abs(max(hi.x - lo.x, hi.y - lo.y, hi.z - lo.z) - 0.3) < 1e-4)
        #expect(ComparisonScene.hex(ComparisonScene.colors.first) == "#4f7fd6")
    }

    @Test("morph: every frame's vertices name atoms of the first structure (identify.json's)")
    func morph() throws {
        let closed = try MeshFixtures.load("pdb1ake.pdb")
        let morph = try Morph.morph(from: closed, to: try MeshFixtures.load("adk_open.pdb.gz"), options: .init(frames: 4))
        var options = MoleculeSceneOptions()
        options.representation = .ballAndStick
        options.allModels = true
        let (scene, _) = try ComparisonScene.morph(morph, options: options)
        #expect(scene.frames.count == 4)
        let model = try #require(closed.firstModel)
        let chainA = Set(morph.sourceAtoms)
        for mesh in scene.meshes {
            let named = mesh.features.filter { $0 != TriangleMesh.noFeature }
            #expect(!named.isEmpty && named.allSatisfy { chainA.contains(Int($0)) && Int($0) < model.atoms.count }, "\(mesh.name)")
        }
        options.allModels = false
        options.model = 5
        #expect(throws: MeshOptionError.self) { try ComparisonScene.morph(morph, options: options) }
    }
}
