import MeshChecks
import Testing
@testable import MoleculeMesh
import Molecule
import SceneExport

@Suite("Atomic representations")
struct AtomicRepresentationsTests {
    enum Rep: String, CaseIterable, CustomStringConvertible {
        case ballAndStick, spacefill, sticks, trace
        var description: String { rawValue }
        func build(_ ctx: MeshContext) -> TriangleMesh {
            switch self {
            case .ballAndStick: return BallAndStick.build(ctx)
            case .spacefill: return Spacefill.build(ctx)
            case .sticks: return Sticks.build(ctx)
            case .trace: return BackboneTrace.build(ctx)
            }
        }
        func estimate(_ ctx: MeshContext) -> Int {
            switch self {
            case .ballAndStick: return BallAndStick.estimatedTriangles(ctx)
            case .spacefill: return Spacefill.estimatedTriangles(ctx)
            case .sticks: return Sticks.estimatedTriangles(ctx)
            case .trace: return BackboneTrace.estimatedTriangles(ctx)
            }
        }
    }

    @Test(arguments: Rep.allCases, [0, 2, 4])
    func validMeshWithinEstimate(rep: Rep, detail: Int) throws {
        let ctx = try MeshFixtures.context1AKE(detail: detail)
        let mesh = rep.build(ctx)
        #expect(mesh.triangleCount > 0)
        #expect(meshProblems(mesh).isEmpty)
        #expect(mesh.triangleCount <= rep.estimate(ctx))
        #expect(mesh.triangleCount == rep.estimate(ctx))  // exact, for 1AKE (no zero-length bonds)
    }

    @Test(arguments: Rep.allCases)
    func hiddenAtomsGiveNoGeometry(rep: Rep) throws {
        let none = try MeshFixtures.context1AKE(visible: { [Bool](repeating: false, count: $0.atomCount) })
        #expect(rep.build(none).triangleCount == 0)
        #expect(rep.estimate(none) == 0)
        #expect(rep.build(none).parts.isEmpty)

        // Only residues 1-60 visible: every vertex lies near them.
        let ctx = try MeshFixtures.context1AKE(visible: { m in
            var v = [Bool](repeating: false, count: m.atomCount)
            for res in m.residues where res.number <= 60 { for i in res.atomRange { v[i] = true } }
            return v
        })
        let mesh = rep.build(ctx)
        #expect(mesh.triangleCount > 0)
        #expect(mesh.triangleCount == rep.estimate(ctx))
        let everything = try MeshFixtures.context1AKE()
        #expect(mesh.triangleCount < rep.build(everything).triangleCount)
        // Bounding box check: every vertex is within 2.5 Å of some visible atom's box.
        let pos = ctx.model.atoms.positions.indices.filter { ctx.visible[$0] }.map { ctx.model.atoms.positions[$0] }
        let lo = pos.reduce(SIMD3<Float>(repeating: .infinity)) { pointwiseMin($0, $1) } - 2.5
        let hi = pos.reduce(SIMD3<Float>(repeating: -.infinity)) { pointwiseMax($0, $1) } + 2.5
        #expect(mesh.positions.allSatisfy { all(($0 .>= lo) .& ($0 .<= hi)) })
    }

    @Test func sphereCountsAndRadii() throws {
        let ctx = try MeshFixtures.context1AKE(detail: 1)
        let atoms = ctx.model.atomCount
        #expect(Spacefill.estimatedTriangles(ctx) == atoms * MeshPrimitives.sphereTriangles(detail: 1))
        let mesh = Spacefill.build(ctx)
        // The first sphere is atom 0's, at its van der Waals radius.
        let p0 = ctx.model.atoms.positions[0]
        let r = ctx.model.atoms.elements[0].vanDerWaalsRadius
        let v = mesh.positions[0] - p0
        #expect(abs((v * v).sum().squareRoot() - r) < 1e-4)
        #expect(mesh.colors[0] == ctx.atomColors[0])
        #expect(BallAndStick.radius(.hydrogen) < BallAndStick.radius(.carbon))
        #expect(BallAndStick.bondRadius < BallAndStick.radius(.hydrogen))
    }

    @Test func backboneTraceFollowsChains() throws {
        let ctx = try MeshFixtures.context1AKE(detail: 0)
        let t = BackboneTrace.trace(ctx)
        // The 1AKE fixture: chain A, 214 residues, an unbroken CA trace.
        #expect(t.atoms.count == 214)
        #expect(t.links.count == 213)
        for (a, b) in t.links {
            let d = ctx.model.atoms.positions[Int(a)] - ctx.model.atoms.positions[Int(b)]
            #expect((d * d).sum().squareRoot() <= BackboneTrace.maxCADistance)
        }
    }

    @Test func coloursFollowAtoms() throws {
        let ctx = try MeshFixtures.context1AKE(detail: 0, scheme: .chain)
        let mesh = Sticks.build(ctx)
        let palette = Set(ctx.atomColors.map { [$0.x, $0.y, $0.z] })
        #expect(mesh.colors.allSatisfy { palette.contains([$0.x, $0.y, $0.z]) })
    }

    @Test func emptyContext() {
        var s = Structure()
        s.models = [Model(number: 1)]
        let ctx = MeshContext(structure: s, model: s.models[0], atomColors: [], visible: [], secondaryStructure: [],
                              bonds: BondList(), detail: 2)
        for rep in Rep.allCases {
            #expect(rep.build(ctx).triangleCount == 0)
            #expect(rep.estimate(ctx) == 0)
        }
    }
}
