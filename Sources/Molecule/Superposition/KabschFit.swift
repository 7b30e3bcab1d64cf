import Geometry

/// The rigid motion that best superposes one set of points on another in the least-squares sense
/// (Kabsch, Acta Cryst. A32:922, 1976), found as the eigenvector of the largest eigenvalue of Horn's
/// symmetric 4 × 4 matrix (Horn, J. Opt. Soc. Am. A 4:629, 1987): a unit quaternion, so the answer
/// is always a proper rotation, with no reflection to correct as an SVD needs. The 4 × 4
/// eigenproblem is solved by cyclic Jacobi rotations.
public enum KabschFit {
    public struct Fit: Sendable, Equatable {
        /// Moves the first set onto the second.
        public var transform: RigidTransform
        /// The root-mean-square distance of the pairs after the motion, Å.
        public var rmsd: Double
    }

    /// The motion taking `moving[k]` as close as possible to `target[k]` over the pairs at `indices`
    /// (all pairs when nil); nil when there are no pairs. One or two pairs (or collinear points)
    /// give one of the equally good motions.
    public static func fit(_ moving: [SIMD3<Double>], _ target: [SIMD3<Double>], indices: [Int]? = nil) -> Fit? {
        precondition(moving.count == target.count, "fit needs paired points")
        let idx = indices ?? Array(moving.indices)
        guard !idx.isEmpty else { return nil }
        let n = Double(idx.count)
        var ca = SIMD3<Double>.zero, cb = SIMD3<Double>.zero
        for k in idx { ca += moving[k]; cb += target[k] }
        ca /= n; cb /= n
        // The correlation matrix S[p][q] = Σ a_p b_q of the centred sets, and their squared norms.
        var s = [Double](repeating: 0, count: 9)
        var normA = 0.0, normB = 0.0
        for k in idx {
            let a = moving[k] - ca, b = target[k] - cb
            s[0] += a.x * b.x; s[1] += a.x * b.y; s[2] += a.x * b.z
            s[3] += a.y * b.x; s[4] += a.y * b.y; s[5] += a.y * b.z
            s[6] += a.z * b.x; s[7] += a.z * b.y; s[8] += a.z * b.z
            normA += lengthSquared(a); normB += lengthSquared(b)
        }
        let (sxx, sxy, sxz, syx, syy, syz, szx, szy, szz) = (s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8])
        let horn: [Double] = [
            sxx + syy + szz, syz - szy, szx - sxz, sxy - syx,
            syz - szy, sxx - syy - szz, sxy + syx, szx + sxz,
            szx - sxz, sxy + syx, -sxx + syy - szz, syz + szy,
            sxy - syx, szx + sxz, syz + szy, -sxx - syy + szz,
        ]
        let (lambda, q) = largestEigenpair(horn)
        let rotation = RigidTransform(quaternion: q, translation: .zero)
        let transform = RigidTransform(rows: rotation.rows, translation: cb - rotation.rotate(ca))
        let rmsd = (max(0, normA + normB - 2 * lambda) / n).squareRoot()
        return Fit(transform: transform, rmsd: rmsd)
    }

    /// The root-mean-square distance of the pairs at `indices` (all when nil) after `transform`.
    public static func rmsd(_ moving: [SIMD3<Double>], _ target: [SIMD3<Double>], transform: RigidTransform,
                            indices: [Int]? = nil) -> Double {
        let idx = indices ?? Array(moving.indices)
        guard !idx.isEmpty else { return 0 }
        let sum = idx.reduce(0.0) { $0 + lengthSquared(transform.apply(moving[$1]) - target[$1]) }
        return (sum / Double(idx.count)).squareRoot()
    }

    /// The largest eigenvalue of a symmetric 4 × 4 matrix (row-major) and its unit eigenvector,
    /// by cyclic Jacobi rotations.
    static func largestEigenpair(_ input: [Double]) -> (Double, SIMD4<Double>) {
        var a = input
        var v: [Double] = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]
        let scale = max(1e-300, input.reduce(0) { max($0, abs($1)) })
        for _ in 0..<60 {
            var off = 0.0
            for p in 0..<3 { for q in (p + 1)..<4 { off += a[p * 4 + q] * a[p * 4 + q] } }
            if off.squareRoot() <= 1e-15 * scale { break }
            for p in 0..<3 {
                for q in (p + 1)..<4 {
                    let apq = a[p * 4 + q]
                    if abs(apq) <= 1e-300 { continue }
                    let app = a[p * 4 + p], aqq = a[q * 4 + q]
                    // The rotation angle that zeroes a[p][q]: tan 2θ = 2 a_pq / (a_qq − a_pp).
                    let theta = (aqq - app) / (2 * apq)
                    let t = (theta >= 0 ? 1.0 : -1.0) / (abs(theta) + (theta * theta + 1).squareRoot())
                    let c = 1 / (t * t + 1).squareRoot(), sn = t * c
                    for k in 0..<4 {  // A ← A·J
                        let akp = a[k * 4 + p], akq = a[k * 4 + q]
                        a[k * 4 + p] = c * akp - sn * akq; a[k * 4 + q] = sn * akp + c * akq
                    }
                    for k in 0..<4 {  // A ← Jᵀ·A
                        let apk = a[p * 4 + k], aqk = a[q * 4 + k]
                        a[p * 4 + k] = c * apk - sn * aqk; a[q * 4 + k] = sn * apk + c * aqk
                    }
                    for k in 0..<4 {  // V ← V·J
                        let vkp = v[k * 4 + p], vkq = v[k * 4 + q]
                        v[k * 4 + p] = c * vkp - sn * vkq; v[k * 4 + q] = sn * vkp + c * vkq
                    }
                }
            }
        }
        var best = 0
        for k in 1..<4 where a[k * 4 + k] > a[best * 4 + best] { best = k }
        var q = SIMD4(v[best], v[4 + best], v[8 + best], v[12 + best])
        let norm = (q * q).sum().squareRoot()
        q = norm > 0 ? q / norm : SIMD4(1, 0, 0, 0)
        return (a[best * 4 + best], q)
    }
}
