import Geometry

// Vector helpers and transforms the scene writers share.

@inline(__always) func isFinite3(_ v: SIMD3<Float>) -> Bool { v.x.isFinite && v.y.isFinite && v.z.isFinite }

/// `v` scaled to unit length, or nil when it has none (zero, subnormal or not finite).
@inline(__always) func unit3(_ v: SIMD3<Float>) -> SIMD3<Float>? {
    let l2 = dot(v, v)
    guard l2.isFinite, l2 > 1e-30 else { return nil }
    return v / l2.squareRoot()
}

/// A column-major 4×4 affine transform split into what baking needs: the linear part's columns, the
/// translation, the normal matrix (inverse transpose up to a positive scale) and whether it mirrors.
struct Affine {
    var c0: SIMD3<Float>, c1: SIMD3<Float>, c2: SIMD3<Float>, t: SIMD3<Float>
    var n0: SIMD3<Float>, n1: SIMD3<Float>, n2: SIMD3<Float>
    /// A negative determinant: baked triangles must swap two corners to keep facing outwards.
    var mirrors: Bool
    var isIdentity: Bool

    init?(_ m: [Float]) {
        guard m.count == 16, m.allSatisfy({ $0.isFinite }) else { return nil }
        c0 = SIMD3(m[0], m[1], m[2]); c1 = SIMD3(m[4], m[5], m[6]); c2 = SIMD3(m[8], m[9], m[10])
        t = SIMD3(m[12], m[13], m[14])
        let det = dot(c0, cross(c1, c2))
        mirrors = det < 0
        let s: Float = mirrors ? -1 : 1
        // Columns of det·M⁻ᵀ are c1×c2, c2×c0, c0×c1; the sign keeps normals pointing the same way.
        n0 = cross(c1, c2) * s; n1 = cross(c2, c0) * s; n2 = cross(c0, c1) * s
        isIdentity = m == Node.identity
    }

    @inline(__always) func point(_ p: SIMD3<Float>) -> SIMD3<Float> { c0 * p.x + c1 * p.y + c2 * p.z + t }

    @inline(__always) func normal(_ n: SIMD3<Float>) -> SIMD3<Float> {
        unit3(n0 * n.x + n1 * n.y + n2 * n.z) ?? n
    }
}
