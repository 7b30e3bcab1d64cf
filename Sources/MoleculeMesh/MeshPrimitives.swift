import Geometry
import SceneExport

/// Tessellated primitives for molecular representations and their triangle counts, so a
/// level-of-detail planner can estimate a representation's cost before building it.
///
/// Spheres are geodesic icospheres: each face of an icosahedron split into f² triangles, with
/// frequency f = 1, 2, 3, 4, 6 at detail 0…4 (20, 80, 180, 320, 720 triangles). Cylinders are open
/// tubes (their ends are always covered by spheres) of 6, 8, 12, 16, 20 sides.
public enum MeshPrimitives {
    /// Detail levels accepted; other values are clamped into this range.
    public static let detailRange = 0...4

    static let sphereFrequencies = [1, 2, 3, 4, 6]
    static let cylinderSideCounts = [6, 8, 12, 16, 20]

    @inline(__always) static func clamp(_ detail: Int) -> Int { min(max(detail, detailRange.lowerBound), detailRange.upperBound) }

    /// Triangles of one sphere: 20·f².
    public static func sphereTriangles(detail: Int) -> Int {
        let f = sphereFrequencies[clamp(detail)]
        return 20 * f * f
    }

    /// Vertices of one sphere: 10·f² + 2.
    public static func sphereVertices(detail: Int) -> Int {
        let f = sphereFrequencies[clamp(detail)]
        return 10 * f * f + 2
    }

    /// Sides of a cylinder (tube) at `detail`.
    public static func cylinderSides(detail: Int) -> Int { cylinderSideCounts[clamp(detail)] }

    /// Triangles of one open tube of one colour: two per side.
    public static func cylinderTriangles(detail: Int) -> Int { 2 * cylinderSides(detail: detail) }

    /// Vertices of one open tube of one colour: two rings.
    public static func cylinderVertices(detail: Int) -> Int { 2 * cylinderSides(detail: detail) }

    /// Triangles of a bond split at its midpoint: one tube when both halves share a colour, else two.
    public static func bondTriangles(detail: Int, sameColor: Bool) -> Int {
        cylinderTriangles(detail: detail) * (sameColor ? 1 : 2)
    }

    /// Vertices of a bond split at its midpoint.
    public static func bondVertices(detail: Int, sameColor: Bool) -> Int {
        cylinderVertices(detail: detail) * (sameColor ? 1 : 2)
    }

    static let sphereTemplates: [SphereTemplate] = sphereFrequencies.map(SphereTemplate.init(frequency:))
    static let ringTemplates: [RingTemplate] = cylinderSideCounts.map(RingTemplate.init(sides:))
}

// MARK: - Templates

/// A unit icosphere: positions are also the unit normals; triangles wind counter-clockwise seen
/// from outside.
struct SphereTemplate: Sendable {
    var points: [SIMD3<Float>] = []
    var indices: [UInt32] = []

    init(frequency f: Int) {
        let phi = (1 + 5.0.squareRoot()) / 2
        var corners: [SIMD3<Double>] = []
        for a in [-1.0, 1.0] { for b in [-phi, phi] {
            corners.append(SIMD3(0, a, b)); corners.append(SIMD3(a, b, 0)); corners.append(SIMD3(b, 0, a))
        } }
        // The 20 faces are the triples of corners pairwise one edge (length 2) apart.
        func adjacent(_ i: Int, _ j: Int) -> Bool { abs(lengthSquared(corners[i] - corners[j]) - 4) < 1e-6 }
        var faces: [(Int, Int, Int)] = []
        for i in 0..<12 { for j in (i + 1)..<12 where adjacent(i, j) { for k in (j + 1)..<12 where adjacent(i, k) && adjacent(j, k) {
            faces.append((i, j, k))
        } } }

        var indexOfKey: [SIMD3<Int64>: UInt32] = [:]
        func vertex(_ p: SIMD3<Double>) -> UInt32 {
            let u = p / lengthSquared(p).squareRoot()
            let key = SIMD3<Int64>(Int64((u.x * 1e6).rounded()), Int64((u.y * 1e6).rounded()), Int64((u.z * 1e6).rounded()))
            if let i = indexOfKey[key] { return i }
            let i = UInt32(points.count)
            points.append(SIMD3<Float>(u))
            indexOfKey[key] = i
            return i
        }
        func triangle(_ a: UInt32, _ b: UInt32, _ c: UInt32) {
            let pa = SIMD3<Double>(points[Int(a)]), pb = SIMD3<Double>(points[Int(b)]), pc = SIMD3<Double>(points[Int(c)])
            let n = cross(pb - pa, pc - pa)
            if dot(n, pa + pb + pc) >= 0 { indices += [a, b, c] } else { indices += [a, c, b] }
        }
        let fd = Double(f)
        for (ia, ib, ic) in faces {
            let a = corners[ia], b = corners[ib], c = corners[ic]
            func grid(_ i: Int, _ j: Int) -> UInt32 { vertex(a + (b - a) * (Double(i) / fd) + (c - a) * (Double(j) / fd)) }
            for i in 0..<f {
                for j in 0..<(f - i) {
                    triangle(grid(i, j), grid(i + 1, j), grid(i, j + 1))
                    if i + j < f - 1 { triangle(grid(i + 1, j), grid(i + 1, j + 1), grid(i, j + 1)) }
                }
            }
        }
    }
}

// MARK: - Builder

/// Accumulates vertices (position, unit normal, linear RGBA, the atom drawn) and triangles into one
/// mesh with a single part (material 0). Pre-size it with the expected counts: appends then never
/// reallocate.
struct MeshBuilder {
    var positions: [SIMD3<Float>] = []
    var normals: [SIMD3<Float>] = []
    var colors: [SIMD4<Float>] = []
    var features: [UInt32] = []
    var indices: [UInt32] = []
    let detail: Int
    private let sphere: SphereTemplate
    private let ring: RingTemplate

    init(detail: Int, vertexCapacity: Int = 0, triangleCapacity: Int = 0) {
        let d = MeshPrimitives.clamp(detail)
        self.detail = d
        sphere = MeshPrimitives.sphereTemplates[d]
        ring = MeshPrimitives.ringTemplates[d]
        positions.reserveCapacity(vertexCapacity); normals.reserveCapacity(vertexCapacity)
        colors.reserveCapacity(vertexCapacity); features.reserveCapacity(vertexCapacity)
        indices.reserveCapacity(3 * triangleCapacity)
    }

    var vertexCount: Int { positions.count }
    var triangleCount: Int { indices.count / 3 }

    /// A sphere of the builder's detail, drawing atom `feature`.
    mutating func addSphere(center: SIMD3<Float>, radius: Float, color: SIMD4<Float>, feature: UInt32) {
        let base = UInt32(positions.count)
        for u in sphere.points {
            positions.append(center + radius * u); normals.append(u); colors.append(color); features.append(feature)
        }
        for i in sphere.indices { indices.append(base &+ i) }
    }

    /// A tube from `a` (atom `featureA`) to `b` (atom `featureB`); when the colours differ it is split
    /// at the midpoint, each half in its end's colour. Each ring names the atom at its end of the
    /// bond, or whose half it closes. Nothing for a zero-length tube.
    mutating func addCylinder(from a: SIMD3<Float>, to b: SIMD3<Float>, radius: Float,
                              colorA: SIMD4<Float>, colorB: SIMD4<Float>, featureA: UInt32, featureB: UInt32) {
        let axis = b - a
        let len2 = lengthSquared(axis)
        guard len2 > 1e-12, len2.isFinite else { return }
        let d = axis / len2.squareRoot()
        // An orthonormal basis (u, v, d), right-handed (Duff et al. 2017 for u, then v = d × u).
        let sign = Float(signOf: d.z, magnitudeOf: 1)
        let k = -1 / (sign + d.z)
        let m = d.x * d.y * k
        var u = SIMD3<Float>(1 + sign * d.x * d.x * k, sign * m, -sign * d.x)
        u /= lengthSquared(u).squareRoot()
        var v = cross(d, u)
        v /= lengthSquared(v).squareRoot()
        if colorA == colorB {
            tube(a, b, u, v, radius, colorA, (featureA, featureB))
        } else {
            let mid = (a + b) * 0.5
            tube(a, mid, u, v, radius, colorA, (featureA, featureA))
            tube(mid, b, u, v, radius, colorB, (featureB, featureB))
        }
    }

    private mutating func tube(_ a: SIMD3<Float>, _ b: SIMD3<Float>, _ u: SIMD3<Float>, _ v: SIMD3<Float>,
                               _ radius: Float, _ color: SIMD4<Float>, _ ends: (UInt32, UInt32)) {
        let n = ring.sides
        let base = UInt32(positions.count)
        for (end, feature) in [(a, ends.0), (b, ends.1)] {
            for k in 0..<n {
                var normal = ring.cosines[k] * u + ring.sines[k] * v
                normal /= lengthSquared(normal).squareRoot()
                positions.append(end + radius * normal); normals.append(normal); colors.append(color); features.append(feature)
            }
        }
        let un = UInt32(n)
        for k in 0..<un {
            let k1 = k + 1 == un ? 0 : k + 1
            let i0 = base + k, i1 = base + k1, j0 = base + un + k, j1 = base + un + k1
            indices.append(i0); indices.append(i1); indices.append(j1)
            indices.append(i0); indices.append(j1); indices.append(j0)
        }
    }

    /// The mesh, with one part (material 0) covering every triangle.
    func build(name: String) -> TriangleMesh {
        var mesh = TriangleMesh(name: name)
        mesh.positions = positions; mesh.normals = normals; mesh.colors = colors; mesh.features = features; mesh.indices = indices
        if !indices.isEmpty { mesh.parts = [TriangleMesh.Part(triangles: 0..<(indices.count / 3), material: 0)] }
        return mesh
    }
}
