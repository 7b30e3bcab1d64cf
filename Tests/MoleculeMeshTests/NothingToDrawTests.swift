import Foundation
import Molecule
import MoleculeMesh
import Testing

/// Files with little to draw: water alone is drawn (water is hidden only beside something else);
/// a header without atoms says so.
@Suite("Files with little to draw")
struct NothingToDrawTests {
    static func read(_ name: String) throws -> Structure {
        let here = "\(#filePath)"
        let dir = String(here[..<(here.lastIndex(of: "/") ?? here.endIndex)])
        return try StructureReader.read(contentsOf: dir + "/../MoleculeTests/Fixtures/" + name)
    }

    @Test("a file of water alone draws its water by default")
    func waterAlone() throws {
        let s = try Self.read("water_only.pdb")
        let (scene, report) = try MoleculeSceneBuilder.build(s, options: MoleculeSceneOptions())
        #expect(scene.triangleCount > 0)
        #expect(report.layers == ["ball-and-stick"])
        // Beside a protein, water stays hidden by default.
        let ubi = try StructureReader.read(contentsOf: MeshFixtures.path("pdb1ubi.pdb"))
        var options = MoleculeSceneOptions()
        options.representation = .spacefill
        let (withProtein, _) = try MoleculeSceneBuilder.build(ubi, options: options)
        options.hide = []
        let (withWater, _) = try MoleculeSceneBuilder.build(ubi, options: options)
        #expect(withWater.triangleCount > withProtein.triangleCount)
    }

    @Test("a header without atoms: the error names the file's title")
    func headerOnly() throws {
        let s = try Self.read("header_only.pdb")
        #expect {
            try MoleculeSceneBuilder.build(s, options: MoleculeSceneOptions())
        } throws: {
            ($0 as? MeshOptionError)?.description
                == "this file has no atoms: only its header (title 'A HEADER WITHOUT COORDINATES: HIV-1 CAPSID C-TERMINAL DOMAIN')"
        }
    }
}
