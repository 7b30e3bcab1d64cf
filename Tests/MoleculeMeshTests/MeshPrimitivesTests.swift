import Geometry
import MeshChecks
import Testing
@testable import MoleculeMesh
import SceneExport

@Suite("Mesh primitives")
struct MeshPrimitivesTests {
    @Test(arguments: 0...4) func sphereCountsMatchPrediction(detail: Int) {
        var b = MeshBuilder(detail: detail)
        let center = SIMD3<Float>(1, -2, 3)
        b.addSphere(center: center, radius: 1.5, color: SIMD4(1, 0, 0, 1), feature: 0)
        let mesh = b.build(name: "s")
        #expect(mesh.triangleCount == MeshPrimitives.sphereTriangles(detail: detail))
        #expect(mesh.vertexCount == MeshPrimitives.sphereVertices(detail: detail))
        #expect(meshProblems(mesh).isEmpty)
        #expect(windsOutward(mesh))
        for (p, n) in zip(mesh.positions, mesh.normals) {
            #expect(abs(((p - center) * (p - center)).sum().squareRoot() - 1.5) < 1e-4)
            #expect(((p - center) / 1.5 - n).max() < 1e-4)
        }
    }

    @Test func countsGrowWithDetail() {
        for d in 1...4 {
            #expect(MeshPrimitives.sphereTriangles(detail: d) > MeshPrimitives.sphereTriangles(detail: d - 1))
            #expect(MeshPrimitives.cylinderTriangles(detail: d) > MeshPrimitives.cylinderTriangles(detail: d - 1))
        }
        #expect(MeshPrimitives.sphereTriangles(detail: -3) == MeshPrimitives.sphereTriangles(detail: 0))
        #expect(MeshPrimitives.sphereTriangles(detail: 9) == MeshPrimitives.sphereTriangles(detail: 4))
        #expect(MeshPrimitives.sphereTriangles(detail: 0) == 20)
    }

    @Test(arguments: [SIMD3<Float>(0, 0, 5), SIMD3<Float>(0, 0, -5), SIMD3<Float>(3, 4, 0), SIMD3<Float>(-1, 2, -0.5)])
    func cylinderSplitsAtMidpoint(direction: SIMD3<Float>) {
        let a = SIMD3<Float>(1, 1, 1), b = a + direction
        let red = SIMD4<Float>(1, 0, 0, 1), blue = SIMD4<Float>(0, 0, 1, 1)
        for detail in 0...4 {
            var two = MeshBuilder(detail: detail)
            two.addCylinder(from: a, to: b, radius: 0.2, colorA: red, colorB: blue, featureA: 0, featureB: 1)
            let mesh = two.build(name: "c")
            #expect(mesh.triangleCount == MeshPrimitives.bondTriangles(detail: detail, sameColor: false))
            #expect(mesh.vertexCount == MeshPrimitives.bondVertices(detail: detail, sameColor: false))
            #expect(meshProblems(mesh).isEmpty)
            #expect(windsOutward(mesh))
            let axis = direction / (direction * direction).sum().squareRoot()
            for (k, p) in mesh.positions.enumerated() {
                let along = ((p - a) * axis).sum()
                let radial = (p - a) - along * axis
                #expect(abs((radial * radial).sum().squareRoot() - 0.2) < 1e-4)
                #expect(abs((mesh.normals[k] * axis).sum()) < 1e-4)
                // Red vertices lie on the first half, blue on the second.
                let half = ((direction * direction).sum().squareRoot()) / 2
                if mesh.colors[k] == red { #expect(along <= half + 1e-4) } else { #expect(along >= half - 1e-4) }
                // Each half names its end's atom.
                #expect(mesh.features[k] == (mesh.colors[k] == red ? 0 : 1))
            }
            var one = MeshBuilder(detail: detail)
            one.addCylinder(from: a, to: b, radius: 0.2, colorA: red, colorB: red, featureA: 0, featureB: 1)
            #expect(one.triangleCount == MeshPrimitives.bondTriangles(detail: detail, sameColor: true))
            // One tube: the ring at each end names that end's atom.
            let sides = MeshPrimitives.cylinderSides(detail: detail)
            #expect(one.features == [UInt32](repeating: 0, count: sides) + [UInt32](repeating: 1, count: sides))
        }
    }

    @Test func zeroLengthCylinderIsSkipped() {
        var b = MeshBuilder(detail: 2)
        b.addCylinder(from: .zero, to: .zero, radius: 1, colorA: SIMD4(1, 1, 1, 1), colorB: SIMD4(0, 0, 0, 1), featureA: 0, featureB: 1)
        #expect(b.triangleCount == 0)
        #expect(b.build(name: "e").parts.isEmpty)
    }

    @Test func trigIsAccurate() {
        for k in 0..<64 {
            let x = Double(k) * 0.4 - 12
            let s = Trig.sin(x), c = Trig.cos(x)
            #expect(abs(s * s + c * c - 1) < 1e-12)
        }
        #expect(abs(Trig.sin(.pi / 6) - 0.5) < 1e-14)
        #expect(abs(Trig.cos(.pi / 3) - 0.5) < 1e-14)
    }
}
