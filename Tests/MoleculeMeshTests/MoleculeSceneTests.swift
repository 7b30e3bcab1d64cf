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

    @Test("the 7CTH 60-mer for AR: past the lightest style, meshoptimizer simplifies it to 100,000 placed triangles, still 60 copies")
    func virusAssemblyForAR() throws {
        let s = try MeshFixtures.load("mmcif_7cth.cif.gz")
        var options = MoleculeSceneOptions()
        options.assembly = "1"
        options.maxTriangles = 100_000
        let (scene, report) = try MoleculeSceneBuilder.build(s, options: options)
        #expect(report.instances == 60)
        #expect(scene.triangleCount <= 100_000 && scene.triangleCount > 90_000, "\(scene.triangleCount) placed triangles")
        let note = try #require(report.notes.first { $0.hasPrefix("simplified (meshoptimizer)") }, "\(report.notes)")
        #expect(note.contains("to stay under 100000"))
        // Each simplified mesh keeps only the vertices its triangles use, with their normals and colours.
        for mesh in scene.meshes {
            #expect(mesh.normals.count == mesh.vertexCount && (mesh.colors.isEmpty || mesh.colors.count == mesh.vertexCount))
            #expect(Set(mesh.indices).count == mesh.vertexCount)
        }
        // A budget that no simplification can reach is still an error that says so.
        options.maxTriangles = 60
        #expect(throws: MeshOptionError.self) { try MoleculeSceneBuilder.build(s, options: options) }
    }

    @Test("the simplifier halves a sphere: at most the target, a small deviation, vertices compacted")
    func simplifier() throws {
        var sphere = TriangleMesh(name: "sphere")
        let rings = 40, segments = 80
        for r in 0...rings {
            let theta = Float.pi * Float(r) / Float(rings)
            for k in 0...segments {
                let phi = 2 * Float.pi * Float(k) / Float(segments)
                let n = SIMD3<Float>(sin(theta) * cos(phi), cos(theta), sin(theta) * sin(phi))
                sphere.positions.append(n * 10)
                sphere.normals.append(n)
            }
        }
        for r in 0..<rings {
            for k in 0..<segments {
                let a = UInt32(r * (segments + 1) + k), b = a + UInt32(segments + 1)
                sphere.indices += [a, b, a + 1, a + 1, b, b + 1]
            }
        }
        sphere.parts = [.init(triangles: 0..<sphere.triangleCount, material: 0)]
        let result = MeshSimplifier.simplify(sphere, targetTriangles: sphere.triangleCount / 2)
        let mesh = result.mesh
        #expect(mesh.triangleCount <= sphere.triangleCount / 2 && mesh.triangleCount > sphere.triangleCount / 4)
        #expect(result.deviation > 0 && result.deviation < 0.5, "deviation \(result.deviation) on a radius of 10")
        #expect(mesh.vertexCount < sphere.vertexCount && Set(mesh.indices).count == mesh.vertexCount)
        for p in mesh.positions { #expect(abs((p * p).sum().squareRoot() - 10) < 1e-4) }
        #expect(mesh.parts == [.init(triangles: 0..<mesh.triangleCount, material: 0)])
        // A target at or above the count leaves the mesh as it is.
        #expect(MeshSimplifier.simplify(sphere, targetTriangles: sphere.triangleCount).mesh.indices == sphere.indices)
    }

    @Test("model N of an NMR ensemble: its own coordinates, placed alike; past the last model an error that says how many")
    func nmrModels() throws {
        let lcd = try MeshFixtures.load("1LCD.cif")
        #expect(lcd.models.count > 1)
        var options = MoleculeSceneOptions()
        options.representation = .ballAndStick
        let first = try MoleculeSceneBuilder.build(lcd, options: options).0
        options.model = 2
        let second = try MoleculeSceneBuilder.build(lcd, options: options).0
        #expect(first.meshes[0].positions.count > 0 && first.meshes[0].positions != second.meshes[0].positions)
        // Its feature ids count the first model's atoms (identify.json's), though 1LCD's models differ
        // in atom count: each names the first model's atom of the same name, and the vertex lies by
        // that atom's place in model 2.
        #expect(lcd.models[0].atoms.count != lcd.models[1].atoms.count)
        let toFirst = MoleculeSceneBuilder.atomIndices(of: lcd.models[1], in: lcd.models[0])
        var second2: [UInt32: SIMD3<Float>] = [:]
        for (a, f) in toFirst.enumerated() where f != TriangleMesh.noFeature { second2[f] = lcd.models[1].atoms.positions[a] }
        var near = 0, all = 0
        for (v, f) in second.meshes[0].features.enumerated() where f != TriangleMesh.noFeature {
            all += 1
            guard let p = second2[f] else { continue }
            let d = second.meshes[0].positions[v] - p
            if (d * d).sum() <= 1.5 * 1.5 { near += 1 }
        }
        #expect(all > 0 && near == all, "\(near) of \(all) vertices lie by the atom they name")
        // Placed as the first model is (its scale and shift within 1 %), not framed anew.
        let (a, b) = (first.nodes[0].transform, second.nodes[0].transform)
        #expect(abs(a[0] - b[0]) < 0.01 * a[0])
        for k in 12..<15 { #expect(abs(a[k] - b[k]) < 0.01 * 0.3) }
        options.model = lcd.models.count + 1
        #expect {
            try MoleculeSceneBuilder.build(lcd, options: options)
        } throws: { ($0 as? MeshOptionError)?.description == "model \(lcd.models.count + 1): the file has \(lcd.models.count) models" }
    }

    @Test("all models: each a frame of the scene, placed alike, sharing the budget")
    func allModels() throws {
        let lcd = try MeshFixtures.load("1LCD.cif")
        var options = MoleculeSceneOptions()
        options.allModels = true
        options.maxTriangles = 30_000
        let (scene, report) = try MoleculeSceneBuilder.build(lcd, options: options)
        #expect(scene.frames.count == lcd.models.count)
        #expect(scene.triangleCount <= 30_000 && report.notes.contains { $0.hasPrefix("3 models as frames") })
        #expect(Set(scene.frames.joined()) == Set(scene.nodes.indices))
        options.allModels = false
        options.maxTriangles = 10_000
        options.model = 2
        let second = try MoleculeSceneBuilder.build(lcd, options: options).0
        let frame = scene.frames[1].map { scene.nodes[$0] }
        #expect(frame.map(\.transform) == second.nodes.map(\.transform))
        #expect(frame.map { scene.meshes[$0.mesh].positions } == second.nodes.map { second.meshes[$0.mesh].positions })
        try scene.validate()
    }

    @Test("sticks over a cartoon: a tapped residue's neighbours as their own layer")
    func sticksOverCartoon() throws {
        let ake = try MeshFixtures.load("pdb1ake.pdb")
        var options = MoleculeSceneOptions()
        options.representation = .cartoon
        options.sticks = "A:86-90"
        let (scene, report) = try MoleculeSceneBuilder.build(ake, options: options)
        #expect(report.layers == ["cartoon", "sticks"])
        #expect(scene.meshes.count == 2)
        options.sticks = "Z:1"
        #expect(throws: MeshOptionError.self) { try MoleculeSceneBuilder.build(ake, options: options) }
    }

    @Test("the binding-site view: tacrine in ball and stick, its site as sticks, a faded cartoon, interactions as dashes in their colours")
    func bindingSite() throws {
        let ake = try MeshFixtures.load("complexes/1acj.pdb.gz")
        var options = MoleculeSceneOptions()
        options.site = "THA"
        let (scene, report) = try MoleculeSceneBuilder.build(ake, options: options)
        #expect(report.layers == ["cartoon", "sticks", "ball-and-stick", "interactions"])
        let dashes = try #require(scene.meshes.last)
        // The dashes draw no atom, and each is in an interaction kind's colour.
        #expect(dashes.name == "interactions" && dashes.features.allSatisfy { $0 == TriangleMesh.noFeature })
        let kinds = Set(InteractionKind.allCases.map { SRGB.linear(hex: $0.color) })
        #expect(!dashes.colors.isEmpty && dashes.colors.allSatisfy { kinds.contains($0) })
        // The cartoon is faded: no channel under the fade's floor (0.55 in linear light).
        let cartoon = try #require(scene.meshes.first)
        #expect(cartoon.colors.allSatisfy { $0.x >= 0.549 && $0.y >= 0.549 && $0.z >= 0.549 })
        options.site = "A:998"
        #expect(throws: MeshOptionError.self) { try MoleculeSceneBuilder.build(ake, options: options) }
        options.site = "A:999"
        #expect(try MoleculeSceneBuilder.build(ake, options: options).1.layers.last == "interactions")
    }

    @Test("the binding-site view of an NMR ensemble's other models: each model's own interactions (1LCD's DNA strand)")
    func bindingSiteInMotion() throws {
        let lcd = try MeshFixtures.load("1LCD.pdb")
        var options = MoleculeSceneOptions()
        options.site = "B:1"
        options.model = 2
        let (second, report) = try MoleculeSceneBuilder.build(lcd, options: options)
        #expect(report.layers.last == "interactions" && second.meshes.last?.name == "interactions")
        options.model = 1
        let first = try MoleculeSceneBuilder.build(lcd, options: options).0
        // Another model, other places: the dashes move with the molecule.
        #expect(first.meshes.last?.positions != second.meshes.last?.positions)
        options.allModels = true
        let (frames, _) = try MoleculeSceneBuilder.build(lcd, options: options)
        #expect(frames.frames.count == 3 && frames.meshes.filter { $0.name.hasSuffix("interactions") }.count == 3)
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
