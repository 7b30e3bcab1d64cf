import Testing
@testable import MoleculeMesh
import Molecule
import SceneExport

@Suite("Molecular surface")
struct SurfaceTests {
    static let fixtures: String = {
        var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(2)  // MoleculeMeshTests/SurfaceTests.swift
        return parts.joined(separator: "/") + "/Fixtures/structures/"
    }()

    static func context(_ file: String, detail: Int) throws -> MeshContext {
        let s = try StructureReader.read(contentsOf: fixtures + file)
        return context(s, detail: detail)
    }

    static func context(_ s: Structure, detail: Int, visible: [Bool]? = nil) -> MeshContext {
        let model = s.models[0]
        let colours: [SIMD4<Float>] = model.atoms.elements.map { e in
            switch e {
            case .carbon: SIMD4(0.5, 0.5, 0.5, 1)
            case .oxygen: SIMD4(1, 0, 0, 1)
            case .nitrogen: SIMD4(0, 0, 1, 1)
            default: SIMD4(1, 1, 0, 1)
            }
        }
        return MeshContext(structure: s, model: model, atomColors: colours,
                           visible: visible ?? [Bool](repeating: true, count: model.atomCount),
                           secondaryStructure: [], bonds: BondList(), detail: detail)
    }

    static func structure(_ atoms: [Atom]) -> Structure {
        var s = Structure()
        var m = Model(number: 1)
        for a in atoms { m.atoms.append(a) }
        s.models = [m]
        return s
    }

    /// Every undirected edge is used by exactly two triangles, once in each direction.
    static func isClosed(_ mesh: TriangleMesh) -> Bool {
        var directed: [UInt64: Int] = [:]
        for t in 0..<mesh.triangleCount {
            for k in 0..<3 {
                let a = UInt64(mesh.indices[3 * t + k]), b = UInt64(mesh.indices[3 * t + (k + 1) % 3])
                directed[a << 32 | b, default: 0] += 1
            }
        }
        for (key, n) in directed {
            let reverse = (key & 0xFFFF_FFFF) << 32 | key >> 32
            if n != 1 || directed[reverse] != 1 { return false }
        }
        return true
    }

    static func checkWellFormed(_ mesh: TriangleMesh) throws {
        #expect(mesh.triangleCount > 0)
        #expect(mesh.normals.count == mesh.vertexCount)
        #expect(mesh.colors.count == mesh.vertexCount)
        #expect(mesh.indices.allSatisfy { Int($0) < mesh.vertexCount })
        #expect(mesh.positions.allSatisfy { $0.x.isFinite && $0.y.isFinite && $0.z.isFinite })
        #expect(mesh.normals.allSatisfy { abs(($0 * $0).sum().squareRoot() - 1) < 1e-3 })
        #expect(mesh.parts == [TriangleMesh.Part(triangles: 0..<mesh.triangleCount, material: 0)])
        var scene = TriangleScene()
        scene.meshes = [mesh]
        scene.materials = [Material(name: "surface", baseColor: SIMD4(1, 1, 1, 1))]
        scene.nodes = [Node(name: "surface", mesh: 0)]
        try scene.validate()
        // Triangles wind counterclockwise seen from outside: their normals agree with the gradient's.
        var agree = 0
        for t in 0..<mesh.triangleCount {
            let a = Int(mesh.indices[3 * t]), b = Int(mesh.indices[3 * t + 1]), c = Int(mesh.indices[3 * t + 2])
            let u = mesh.positions[b] - mesh.positions[a], v = mesh.positions[c] - mesh.positions[a]
            let n = SIMD3(u.y * v.z - u.z * v.y, u.z * v.x - u.x * v.z, u.x * v.y - u.y * v.x)
            if (n * (mesh.normals[a] + mesh.normals[b] + mesh.normals[c])).sum() >= 0 { agree += 1 }
        }
        #expect(Double(agree) >= 0.98 * Double(mesh.triangleCount))
    }

    @Test func singleAtomIsAClosedSphereOfItsRadius() throws {
        let centre = SIMD3<Float>(3, -2, 7)
        let s = Self.structure([Atom(name: "CA", element: .carbon, position: centre)])
        for detail in 0...4 {
            let ctx = Self.context(s, detail: detail)
            let mesh = MolecularSurface.build(ctx)
            try Self.checkWellFormed(mesh)
            #expect(Self.isClosed(mesh))
            let distances = mesh.positions.map { (($0 - centre) * ($0 - centre)).sum().squareRoot() }
            let mean = distances.reduce(0, +) / Float(distances.count)
            let r = Element.carbon.vanDerWaalsRadius
            #expect(abs(mean - r) < 0.25, "detail \(detail): mean radius \(mean)")
            #expect(distances.allSatisfy { abs($0 - mean) < 0.35 })
            // Normals point away from the centre; colours are the atom's.
            #expect(zip(mesh.positions, mesh.normals).allSatisfy { (($0 - centre) * $1).sum() > 0 })
            #expect(mesh.colors.allSatisfy { $0 == SIMD4(0.5, 0.5, 0.5, 1) })
            #expect(mesh.triangleCount <= MolecularSurface.estimatedTriangles(ctx))
        }
    }

    @Test func hydrogensAndHiddenAtomsAreLeftOut() throws {
        let h = Self.structure([Atom(name: "H", element: .hydrogen, position: .zero)])
        #expect(MolecularSurface.build(Self.context(h, detail: 2)).triangleCount == 0)
        #expect(MolecularSurface.estimatedTriangles(Self.context(h, detail: 2)) == 0)

        let s = try StructureReader.read(contentsOf: Self.fixtures + "pdb1ake.pdb")
        let n = s.models[0].atomCount
        let none = Self.context(s, detail: 1, visible: [Bool](repeating: false, count: n))
        #expect(MolecularSurface.build(none).triangleCount == 0)

        // Show only the first 200 atoms: every vertex lies near one of them.
        let visible = (0..<n).map { $0 < 200 }
        let ctx = Self.context(s, detail: 1, visible: visible)
        let mesh = MolecularSurface.build(ctx)
        try Self.checkWellFormed(mesh)
        let shown = Array(s.models[0].atoms.positions[0..<200])
        for p in mesh.positions {
            let nearest = shown.map { (($0 - p) * ($0 - p)).sum() }.min()!
            #expect(nearest.squareRoot() < 4)
        }
        let all = MolecularSurface.build(Self.context(s, detail: 1))
        #expect(mesh.triangleCount < all.triangleCount / 5)
    }

    @Test func adenylateKinase() throws {
        let ctx = try Self.context("pdb1ake.pdb", detail: 2)
        let mesh = MolecularSurface.build(ctx)
        try Self.checkWellFormed(mesh)
        #expect(Self.isClosed(mesh))
        #expect(mesh.triangleCount <= MolecularSurface.estimatedTriangles(ctx))
        // Colours come from the atoms: carbon grey, oxygen red and nitrogen blue all appear.
        #expect(mesh.colors.contains(SIMD4(1, 0, 0, 1)))
        #expect(mesh.colors.contains(SIMD4(0, 0, 1, 1)))
        #expect(mesh.colors.contains(SIMD4(0.5, 0.5, 0.5, 1)))
    }

    @Test func crambinIsClosedAtFineDetail() throws {
        let ctx = try Self.context("pdb1ejg.pdb", detail: 4)
        let mesh = MolecularSurface.build(ctx)
        try Self.checkWellFormed(mesh)
        #expect(Self.isClosed(mesh))
    }

    @Test(arguments: ["pdb1ejg.pdb", "pdb1ake.pdb", "1LCD.pdb", "pdb1ubi.pdb"])
    func estimateIsAnUpperBound(file: String) throws {
        for detail in 0...4 {
            let ctx = try Self.context(file, detail: detail)
            let built = MolecularSurface.build(ctx).triangleCount
            let estimate = MolecularSurface.estimatedTriangles(ctx)
            #expect(built <= estimate, "\(file) detail \(detail): \(built) > \(estimate)")
            #expect(estimate < 3 * built + 1000, "\(file) detail \(detail): estimate \(estimate) for \(built)")
        }
    }

    @Test func tablesChainEveryCaseIntoClosedLoops() {
        let t = SurfaceMarchingCubes.tables
        #expect(t.triangleStart.count == 257)
        for config in 0..<256 {
            let edges = t.triangleEdges[Int(t.triangleStart[config])..<Int(t.triangleStart[config + 1])]
            // Each crossed edge is used, and only crossed edges are.
            for e in 0..<12 {
                let (a, b) = t.edgeCorners[e]
                let crossed = (config >> Int(a) & 1) != (config >> Int(b) & 1)
                #expect(edges.contains(UInt8(e)) == crossed, "case \(config) edge \(e)")
            }
        }
        #expect(t.triangleStart[1] == 0 && t.triangleStart[255] == t.triangleStart[256])
    }
}
