import Testing
@testable import MoleculeMesh
import Molecule
import SceneExport

@Suite("Cartoon")
struct CartoonTests {
    static let fixtures: String = {
        var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        parts.removeLast(2)  // MoleculeMeshTests/CartoonTests.swift
        return parts.joined(separator: "/") + "/Fixtures/structures/"
    }()

    static func context(_ file: String, detail: Int = 2, visible: ((Int) -> Bool)? = nil) throws -> MeshContext {
        let s = try StructureReader.read(contentsOf: fixtures + file)
        return context(s, detail: detail, visible: visible)
    }

    static func context(_ s: Structure, detail: Int = 2, visible: ((Int) -> Bool)? = nil) -> MeshContext {
        let model = s.models[0]
        let chainOfResidue = model.chainIndexOfResidues()
        let palette: [SIMD4<Float>] = [SIMD4(0.9, 0.3, 0.2, 1), SIMD4(0.2, 0.5, 0.9, 1), SIMD4(0.3, 0.8, 0.3, 1),
                                       SIMD4(0.9, 0.8, 0.2, 1), SIMD4(0.7, 0.3, 0.8, 1)]
        var colors = [SIMD4<Float>](repeating: SIMD4(1, 1, 1, 1), count: model.atomCount)
        for (r, res) in model.residues.enumerated() {
            for a in res.atomRange { colors[a] = palette[Int(chainOfResidue[r]) % palette.count] }
        }
        let vis = (0..<model.atomCount).map { visible?($0) ?? true }
        return MeshContext(structure: s, model: model, atomColors: colors, visible: vis,
                           secondaryStructure: s.secondaryStructure(), bonds: BondBuilder.bonds(of: model, in: s),
                           detail: detail)
    }

    /// Bounding box of the traced atoms (CA of amino acids, P/C4' of nucleotides).
    static func traceBox(_ model: Model) -> (SIMD3<Float>, SIMD3<Float>) {
        var lo = SIMD3<Float>(repeating: .infinity), hi = SIMD3<Float>(repeating: -.infinity)
        for res in model.residues where res.kind == .aminoAcid || res.kind == .nucleotide {
            for a in res.atomRange where ["CA", "P", "C4'", "N1", "N3"].contains(model.atoms.names[a]) {
                lo = pointwiseMin(lo, model.atoms.positions[a]); hi = pointwiseMax(hi, model.atoms.positions[a])
            }
        }
        return (lo, hi)
    }

    static func checkMesh(_ mesh: TriangleMesh, _ ctx: MeshContext, slack: Float = 3) {
        #expect(mesh.triangleCount > 0)
        #expect(mesh.triangleCount <= Cartoon.estimatedTriangles(ctx))
        #expect(mesh.normals.count == mesh.vertexCount)
        #expect(mesh.colors.count == mesh.vertexCount)
        #expect(mesh.indices.allSatisfy { Int($0) < mesh.vertexCount })
        #expect(mesh.positions.allSatisfy { $0.x.isFinite && $0.y.isFinite && $0.z.isFinite })
        #expect(mesh.normals.allSatisfy { abs(($0 * $0).sum().squareRoot() - 1) < 1e-3 })
        var scene = TriangleScene()
        scene.meshes = [mesh]
        scene.materials = [Material(name: "m", baseColor: SIMD4(1, 1, 1, 1))]
        scene.nodes = [Node(name: "n", mesh: 0)]
        #expect(throws: Never.self) { try scene.validate() }
        let (lo, hi) = traceBox(ctx.model)
        var mlo = SIMD3<Float>(repeating: .infinity), mhi = SIMD3<Float>(repeating: -.infinity)
        for p in mesh.positions { mlo = pointwiseMin(mlo, p); mhi = pointwiseMax(mhi, p) }
        #expect(all(mlo .>= lo - slack) && all(mhi .<= hi + slack), "cartoon box \(mlo)…\(mhi), trace \(lo)…\(hi)")
    }

    @Test(arguments: ["pdb1ake.pdb", "2XHE.cif.gz", "1LCD.pdb"])
    func meshIsWellFormedAndGrowsWithDetail(_ file: String) throws {
        let s = try StructureReader.read(contentsOf: Self.fixtures + file)
        var previous = 0
        for detail in 0...4 {
            let ctx = Self.context(s, detail: detail)
            let mesh = Cartoon.build(ctx)
            Self.checkMesh(mesh, ctx)
            #expect(mesh.triangleCount > previous)
            #expect(mesh.triangleCount == Cartoon.estimatedTriangles(ctx))
            previous = mesh.triangleCount
        }
    }

    @Test func ribosomeSizedStructure() throws {
        let ctx = try Self.context("pdb4v8r_h36.pdb.gz", detail: 0)
        let mesh = Cartoon.build(ctx)
        Self.checkMesh(mesh, ctx)
    }

    @Test func nucleicAcidHasBaseSlabs() throws {
        let ctx = try Self.context("1LCD.pdb")
        let pieces = CartoonTrace.pieces(ctx)
        #expect(pieces.contains { $0.isNucleic && !$0.bases.isEmpty })
        #expect(pieces.contains { !$0.isNucleic })
    }

    @Test func strandsEndInArrowsAndHelicesAreWide() throws {
        let ctx = try Self.context("pdb1ake.pdb")
        let pieces = CartoonTrace.pieces(ctx)
        #expect(pieces.contains { $0.arrows.contains(true) })
        #expect(pieces.contains { $0.elements.contains(.helix) })
        // This 1AKE file holds one chain (214 residues) without gaps.
        #expect(pieces.count == 1)
        #expect(pieces.first?.count == 214)
    }

    @Test func hiddenResiduesAreLeftOut() throws {
        let s = try StructureReader.read(contentsOf: Self.fixtures + "pdb1ake.pdb")
        let model = s.models[0]
        let atomEnd = model.residues[100].atomRange.upperBound
        let all = Cartoon.build(Self.context(s))
        let half = Cartoon.build(Self.context(s, visible: { $0 < atomEnd }))
        #expect(half.triangleCount > 0 && half.triangleCount < all.triangleCount * 2 / 3)
        let none = Self.context(s, visible: { _ in false })
        #expect(Cartoon.build(none).triangleCount == 0)
        #expect(Cartoon.estimatedTriangles(none) == 0)
    }

    @Test func noPolymerGivesAnEmptyMesh() throws {
        let ctx = try Self.context("HEM.cif")
        let mesh = Cartoon.build(ctx)
        #expect(mesh.triangleCount == 0 && mesh.vertexCount == 0 && mesh.parts.isEmpty)
        #expect(Cartoon.estimatedTriangles(ctx) == 0)
    }

    /// Coincident CAs, two- and one-residue chains: no NaN, no crash.
    @Test func degenerateChains() {
        func residue(_ name: String, _ n: Int32, _ atoms: [(String, SIMD3<Float>)], into model: inout Model) {
            let start = Int32(model.atoms.count)
            for (a, p) in atoms {
                let e: Element = a.hasPrefix("N") ? .nitrogen : a.hasPrefix("O") ? .oxygen : .carbon
                model.atoms.append(Atom(name: a, element: e, position: p))
            }
            model.residues.append(Residue(name: name, number: n, atomStart: start, atomEnd: Int32(model.atoms.count)))
        }
        var model = Model(number: 1)
        let z = SIMD3<Float>(1, 2, 3)
        // Chain A: three residues all at one point. Chain B: two residues. Chain C: one residue.
        for i in 0..<3 { residue("ALA", Int32(i + 1), [("N", z), ("CA", z), ("C", z), ("O", z)], into: &model) }
        model.chains.append(Chain(id: "A", residueStart: 0, residueEnd: 3))
        for i in 0..<2 {
            let p = SIMD3<Float>(Float(i) * 3.8, 10, 0)
            residue("GLY", Int32(i + 1), [("N", p - SIMD3(1, 0, 0)), ("CA", p), ("C", p + SIMD3(1, 0, 0)),
                                           ("O", p + SIMD3(1, 1, 0))], into: &model)
        }
        model.chains.append(Chain(id: "B", residueStart: 3, residueEnd: 5))
        residue("GLY", 1, [("N", .zero), ("CA", SIMD3(0, 0, 1)), ("C", SIMD3(0, 0, 2))], into: &model)
        model.chains.append(Chain(id: "C", residueStart: 5, residueEnd: 6))
        var s = Structure()
        s.models = [model]
        for detail in 0...4 {
            let ctx = MeshContext(structure: s, model: model,
                                  atomColors: [SIMD4<Float>](repeating: SIMD4(1, 0, 0, 1), count: model.atomCount),
                                  visible: [Bool](repeating: true, count: model.atomCount),
                                  secondaryStructure: [.strand, .strand, .strand, .alphaHelix, .alphaHelix, .coil],
                                  bonds: BondList(), detail: detail)
            let mesh = Cartoon.build(ctx)
            #expect(mesh.triangleCount > 0)
            #expect(mesh.triangleCount <= Cartoon.estimatedTriangles(ctx))
            #expect(mesh.positions.allSatisfy { $0.x.isFinite && $0.y.isFinite && $0.z.isFinite })
            #expect(mesh.normals.allSatisfy { abs(($0 * $0).sum().squareRoot() - 1) < 1e-3 })
            #expect(mesh.indices.allSatisfy { Int($0) < mesh.vertexCount })
        }
    }
}
