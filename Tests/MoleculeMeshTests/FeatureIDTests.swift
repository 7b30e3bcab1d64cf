import Geometry
import Testing
@testable import MoleculeMesh
import Molecule
import SceneExport

/// Every vertex of every style says which atom it draws (`TriangleMesh.features`), so a tap on the
/// model can name it: checked here against the geometry itself (the nearest atom, the residue's
/// backbone), and through the budget's simplification.
@Suite("What each vertex draws")
struct FeatureIDTests {
    static func nearestAtom(to p: SIMD3<Float>, among atoms: [Int], in model: Model) -> (atom: Int, distance: Float) {
        var best = (atom: -1, distance: Float.infinity)
        for a in atoms {
            let d = length(p - model.atoms.positions[a])
            if d < best.distance { best = (a, d) }
        }
        return best
    }

    /// The drawn atoms near each vertex, from a coarse grid (1AKE has 3,800 atoms and a model tens
    /// of thousands of vertices).
    static func candidates(_ model: Model, visible: [Bool]) -> (SIMD3<Float>) -> [Int] {
        var cells: [SIMD3<Int32>: [Int]] = [:]
        func cell(_ p: SIMD3<Float>) -> SIMD3<Int32> { SIMD3<Int32>((p / 4).rounded(.down)) }
        for a in 0..<model.atomCount where visible[a] { cells[cell(model.atoms.positions[a]), default: []].append(a) }
        return { p in
            let c = cell(p)
            var out: [Int] = []
            for dx: Int32 in -1...1 { for dy: Int32 in -1...1 { for dz: Int32 in -1...1 { out += cells[c &+ SIMD3(dx, dy, dz)] ?? [] } } }
            return out
        }
    }

    @Test("ball-and-stick and sticks: each vertex names the residue of the atom nearest to it (a bond's middle: either end)",
          arguments: [Representation.ballAndStick, .sticks])
    func atomic(style: Representation) throws {
        let ctx = try MeshFixtures.context1AKE(detail: 1)
        let mesh = style.build(ctx)
        #expect(mesh.features.count == mesh.vertexCount && mesh.vertexCount > 0)
        let residueOf = ctx.model.residueIndexOfAtoms()
        let near = Self.candidates(ctx.model, visible: ctx.visible)
        var wrong = 0, otherAtom = 0
        for (v, p) in mesh.positions.enumerated() {
            let named = Int(mesh.features[v])
            let nearest = Self.nearestAtom(to: p, among: near(p), in: ctx.model)
            // A split bond's middle ring lies halfway: the two ends are equally near.
            guard named != nearest.atom, abs(length(p - ctx.model.atoms.positions[named]) - nearest.distance) > 1e-3 else { continue }
            // Two conformations of one atom (1AKE's alternate locations) overlap: either is that atom.
            if residueOf[named] != residueOf[nearest.atom] { wrong += 1 } else { otherAtom += 1 }
        }
        #expect(wrong == 0, "\(wrong) of \(mesh.vertexCount) vertices name a residue that is not the nearest atom's")
        #expect(Double(otherAtom) <= 0.01 * Double(mesh.vertexCount), "\(otherAtom) vertices name another atom of the nearest atom's residue")
    }

    @Test("spacefill: each vertex that can be seen (inside no other atom's sphere) names the residue of the sphere it lies on")
    func spacefill() throws {
        let ctx = try MeshFixtures.context1AKE(detail: 1)
        let mesh = Representation.spacefill.build(ctx)
        #expect(mesh.features.count == mesh.vertexCount && mesh.vertexCount > 0)
        let model = ctx.model
        let residueOf = model.residueIndexOfAtoms()
        let near = Self.candidates(model, visible: ctx.visible)
        var seen = 0, wrong = 0
        for (v, p) in mesh.positions.enumerated() {
            // How far outside each sphere the vertex lies: 0 on its own, negative inside another.
            let gaps = near(p).map { (atom: $0, gap: length(p - model.atoms.positions[$0]) - model.atoms.elements[$0].vanDerWaalsRadius) }
            guard let deepest = gaps.min(by: { $0.gap < $1.gap }), deepest.gap > -1e-3 else { continue }
            seen += 1
            if residueOf[Int(mesh.features[v])] != residueOf[deepest.atom] && abs(deepest.gap) > 1e-3 { wrong += 1 }
        }
        #expect(seen > mesh.vertexCount / 4)
        #expect(Double(wrong) <= 0.01 * Double(seen), "\(wrong) of \(seen) vertices in sight name another residue")
    }

    @Test("the surface: at least 99 % of vertices lie within 4 Å of an atom of the residue they name")
    func surface() throws {
        let ctx = try MeshFixtures.context1AKE(detail: 1)
        let mesh = Representation.surface.build(ctx)
        #expect(mesh.features.count == mesh.vertexCount && mesh.vertexCount > 0)
        let model = ctx.model
        let residueOf = model.residueIndexOfAtoms()
        var far = 0
        for (v, p) in mesh.positions.enumerated() {
            let named = mesh.features[v]
            guard named != TriangleMesh.noFeature else { far += 1; continue }
            let atoms = Array(model.residues[Int(residueOf[Int(named)])].atomRange)
            if Self.nearestAtom(to: p, among: atoms, in: model).distance > 4 { far += 1 }
        }
        #expect(Double(far) <= 0.01 * Double(mesh.vertexCount), "\(far) of \(mesh.vertexCount) vertices lie over 4 Å from the residue they name")
    }

    @Test("cartoon and backbone: each vertex names a traced atom (CA) of its residue, within 3 Å of that residue's backbone",
          arguments: [Representation.cartoon, .backbone])
    func traced(style: Representation) throws {
        let ctx = try MeshFixtures.context1AKE(detail: 2)
        let mesh = style.build(ctx)
        let model = ctx.model
        #expect(mesh.features.count == mesh.vertexCount && mesh.vertexCount > 0)
        let residueOf = model.residueIndexOfAtoms()
        var far = 0, notTraced = 0
        for (v, p) in mesh.positions.enumerated() {
            let atom = Int(mesh.features[v])
            guard atom < model.atomCount, model.atoms.names[atom] == "CA" else { notTraced += 1; continue }
            let backbone = model.residues[Int(residueOf[atom])].atomRange.filter { ["N", "CA", "C", "O"].contains(model.atoms.names[$0]) }
            if Self.nearestAtom(to: p, among: backbone, in: model).distance > 3 { far += 1 }
        }
        #expect(notTraced == 0)
        #expect(Double(far) <= 0.01 * Double(mesh.vertexCount), "\(far) of \(mesh.vertexCount) vertices lie over 3 Å from their residue's backbone")
    }

    @Test("simplified to a budget, the kept vertices still name what they drew")
    func simplified() throws {
        let ctx = try MeshFixtures.context1AKE(detail: 1)
        let mesh = Representation.ballAndStick.build(ctx)
        let small = MeshSimplifier.simplify(mesh, targetTriangles: mesh.triangleCount / 4).mesh
        #expect(small.triangleCount <= mesh.triangleCount / 4 && small.features.count == small.vertexCount)
        // A split bond's middle has two rings at one place, one for each end.
        var named: [SIMD3<Float>: Set<UInt32>] = [:]
        for (v, p) in mesh.positions.enumerated() { named[p, default: []].insert(mesh.features[v]) }
        #expect(small.positions.indices.allSatisfy { named[small.positions[$0]]?.contains(small.features[$0]) == true })
    }

    @Test("the scene builder keeps them: one per vertex in every mesh, every id an atom of the model")
    func scene() throws {
        let s = try MeshFixtures.load("pdb1ake.pdb")
        for style in [Representation.auto, .ballAndStick, .surface] {
            var options = MoleculeSceneOptions()
            options.representation = style
            options.maxTriangles = 20_000
            let (scene, _) = try MoleculeSceneBuilder.build(s, options: options)
            try scene.validate()
            for mesh in scene.meshes {
                #expect(mesh.features.count == mesh.vertexCount)
                #expect(mesh.features.allSatisfy { $0 == TriangleMesh.noFeature || Int($0) < s.models[0].atomCount })
            }
        }
    }
}
