import Geometry
import SceneExport

/// Cross-section of the cartoon at one spline sample: a superellipse with half-width `a` along the
/// guide (binormal), half-thickness `b` along the normal, and `square` blending an ellipse (0) into
/// the flatter |x|⁴ + |y|⁴ = 1 shape (1) used for strands.
struct CartoonProfile: Equatable {
    var a: Float
    var b: Float
    var square: Float

    static func lerp(_ p: CartoonProfile, _ q: CartoonProfile, _ t: Float) -> CartoonProfile {
        CartoonProfile(a: p.a + (q.a - p.a) * t, b: p.b + (q.b - p.b) * t, square: p.square + (q.square - p.square) * t)
    }
}

/// Sizes in Å, chosen after Mol*'s and PyMOL's default cartoons.
enum CartoonSizes {
    static let coilRadius: Float = 0.25
    static let nucleicRadius: Float = 0.4
    static let helixHalfWidth: Float = 0.7      // 1.4 Å wide
    static let helixHalfThickness: Float = 0.15 // 0.3 Å thick
    static let strandHalfWidth: Float = 0.8     // 1.6 Å wide
    static let strandHalfThickness: Float = 0.15
    static let arrowHalfWidth: Float = 1.2      // arrow base 1.5 × the strand's width
    static let baseHalfWidth: Float = 0.5       // nucleotide slab: 1 Å wide in the base plane
    static let baseHalfThickness: Float = 0.2   // 0.4 Å thick across it
    /// CA–CA distance above which a protein trace breaks (a gap in the model).
    static let proteinBreak: Float = 4.2
    /// P–P (or C4'–P) distance above which a nucleic-acid trace breaks.
    static let nucleicBreak: Float = 8.5

    static let coil = CartoonProfile(a: coilRadius, b: coilRadius, square: 0)
    static let nucleic = CartoonProfile(a: nucleicRadius, b: nucleicRadius, square: 0)
    static let helix = CartoonProfile(a: helixHalfWidth, b: helixHalfThickness, square: 0)
    static let strand = CartoonProfile(a: strandHalfWidth, b: strandHalfThickness, square: 1)

    /// Spline samples per residue and vertices per cross-section at detail 0...4.
    static func segmentsPerResidue(_ detail: Int) -> Int { [2, 4, 6, 8, 10][min(max(detail, 0), 4)] }
    static func ringVertices(_ detail: Int) -> Int { [4, 6, 8, 12, 16][min(max(detail, 0), 4)] }
}

/// Unit-circle directions of a ring of `m` vertices, computed without Foundation: a Taylor series
/// for the one angle step, then rotation by repeated complex multiplication (renormalised).
struct CartoonRing {
    var cos: [Float]
    var sin: [Float]
    /// sqrt(|cos|)·sign and sqrt(|sin|)·sign, the |x|⁴ + |y|⁴ = 1 superellipse's parametrisation.
    var cosSq: [Float]
    var sinSq: [Float]
    var count: Int { cos.count }

    init(_ m: Int) {
        let step = 2 * Double.pi / Double(m)
        let (c1, s1) = (Trig.cos(step), Trig.sin(step))
        // Four-vertex rings are turned by 45° so that ribbons get flat faces, not a diamond.
        var (c, s) = m == 4 ? ((0.5 as Double).squareRoot(), (0.5 as Double).squareRoot()) : (1.0, 0.0)
        cos = []; sin = []; cosSq = []; sinSq = []
        for _ in 0..<m {
            cos.append(Float(c)); sin.append(Float(s))
            cosSq.append(Float(c < 0 ? -(-c).squareRoot() : c.squareRoot()))
            sinSq.append(Float(s < 0 ? -(-s).squareRoot() : s.squareRoot()))
            (c, s) = (c * c1 - s * s1, c * s1 + s * c1)
            let l = (c * c + s * s).squareRoot()
            c /= l; s /= l
        }
    }
}

/// Growing vertex and index arrays of the cartoon mesh; each vertex names the traced atom of the
/// residue it draws.
struct CartoonMeshBuffer {
    var positions: [SIMD3<Float>] = []
    var normals: [SIMD3<Float>] = []
    var colors: [SIMD4<Float>] = []
    var features: [UInt32] = []
    var indices: [UInt32] = []

    init(reserveTriangles t: Int) {
        // A tube has about one vertex per two triangles; caps and boxes a little more.
        let v = t / 2 + 64
        positions.reserveCapacity(v); normals.reserveCapacity(v); colors.reserveCapacity(v); features.reserveCapacity(v)
        indices.reserveCapacity(t * 3)
    }

    var vertexCount: Int { positions.count }

    @inline(__always)
    mutating func vertex(_ p: SIMD3<Float>, _ n: SIMD3<Float>, _ c: SIMD4<Float>, _ feature: UInt32) {
        positions.append(p); normals.append(n); colors.append(c); features.append(feature)
    }

    @inline(__always)
    mutating func triangle(_ a: Int, _ b: Int, _ c: Int) {
        indices.append(UInt32(a)); indices.append(UInt32(b)); indices.append(UInt32(c))
    }

    /// Appends one cross-section ring; returns the index of its first vertex.
    mutating func ring(center: SIMD3<Float>, binormal B: SIMD3<Float>, normal N: SIMD3<Float>,
                       profile: CartoonProfile, color: SIMD4<Float>, feature: UInt32, shape: CartoonRing) -> Int {
        let first = positions.count
        let t = profile.square, u = 1 - t
        let invA = 1 / profile.a, invB = 1 / profile.b
        for j in 0..<shape.count {
            let c = shape.cos[j], s = shape.sin[j]
            let cq = shape.cosSq[j], sq = shape.sinSq[j]
            // Point on the blended ellipse / superellipse, and the gradient of each shape there.
            let x = profile.a * (u * c + t * cq)
            let y = profile.b * (u * s + t * sq)
            let nx = (u * c + t * c * abs(c).squareRoot() * 1) * invA
            let ny = (u * s + t * s * abs(s).squareRoot() * 1) * invB
            var n = nx * B + ny * N
            let l = (n * n).sum().squareRoot()
            n = l > 1e-12 ? n / l : B
            vertex(center + x * B + y * N, n, color, feature)
        }
        return first
    }

    /// Joins two consecutive rings of `m` vertices with quads facing outward.
    mutating func join(_ r0: Int, _ r1: Int, _ m: Int) {
        for j in 0..<m {
            let k = j + 1 == m ? 0 : j + 1
            let a = r0 + j, b = r0 + k, c = r1 + k, d = r1 + j
            triangle(a, b, c); triangle(a, c, d)
        }
    }

    /// A flat cap over ring `r` (m vertices) facing `facing` (±tangent); `forward` caps face along
    /// the spline direction (the ring's winding), others against it.
    mutating func cap(ring r: Int, _ m: Int, center: SIMD3<Float>, facing: SIMD3<Float>, forward: Bool) {
        let color = colors[r]
        let c = positions.count
        vertex(center, facing, color, features[r])
        for j in 0..<m { vertex(positions[r + j], facing, colors[r + j], features[r + j]) }
        for j in 0..<m {
            let k = j + 1 == m ? 0 : j + 1
            if forward { triangle(c, c + 1 + j, c + 1 + k) } else { triangle(c, c + 1 + k, c + 1 + j) }
        }
    }

    /// A box from `start` to `end`, `halfWidth` along `side` and `halfThickness` along `up`
    /// (both unit and perpendicular to the axis): 24 vertices, 12 triangles.
    mutating func box(start: SIMD3<Float>, end: SIMD3<Float>, up: SIMD3<Float>, side: SIMD3<Float>,
                      halfWidth: Float, halfThickness: Float, color: SIMD4<Float>, feature: UInt32) {
        let axis = end - start
        let len = (axis * axis).sum().squareRoot()
        let A = len > 1e-6 ? axis / len : cross(up, side)
        let mid = (start + end) * 0.5
        let h = len * 0.5
        // (normal, u, v) with u × v = normal; u, v half extents.
        let faces: [(SIMD3<Float>, SIMD3<Float>, SIMD3<Float>)] = [
            (up, side * halfWidth, A * h), (-up, A * h, side * halfWidth),
            (side, A * h, up * halfThickness), (-side, up * halfThickness, A * h),
            (A, up * halfThickness, side * halfWidth), (-A, side * halfWidth, up * halfThickness),
        ]
        let offsets: [Float] = [halfThickness, halfThickness, halfWidth, halfWidth, h, h]
        for (f, face) in faces.enumerated() {
            let (n, u, v) = face
            let c = mid + n * offsets[f]
            let i = positions.count
            vertex(c - u - v, n, color, feature); vertex(c + u - v, n, color, feature)
            vertex(c + u + v, n, color, feature); vertex(c - u + v, n, color, feature)
            triangle(i, i + 1, i + 2); triangle(i, i + 2, i + 3)
        }
    }
}

