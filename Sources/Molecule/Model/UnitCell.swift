import Foundation

/// A crystal's unit cell: edge lengths in Å and angles in degrees, as CRYST1 and `_cell` give them.
/// Fractional coordinates become Cartesian by the standard (PDB) orthogonalisation: a along x,
/// b in the xy plane, c completing a right-handed frame.
public struct UnitCell: Sendable, Equatable, Codable {
    public var a: Double
    public var b: Double
    public var c: Double
    public var alpha: Double
    public var beta: Double
    public var gamma: Double

    public init(a: Double, b: Double, c: Double, alpha: Double = 90, beta: Double = 90, gamma: Double = 90) {
        self.a = a; self.b = b; self.c = c; self.alpha = alpha; self.beta = beta; self.gamma = gamma
    }

    /// Why these numbers are no cell (a length not positive, an angle outside 0–180°, or angles
    /// that close no volume); nil when they are one.
    public var problem: String? {
        for (name, v) in [("a", a), ("b", b), ("c", c)] where !(v > 0 && v < 1e5) { return "cell length \(name) = \(v) is not in (0, 100000) Å" }
        for (name, v) in [("alpha", alpha), ("beta", beta), ("gamma", gamma)] where !(v > 0 && v < 180) {
            return "cell angle \(name) = \(v) is not in (0, 180)°"
        }
        guard volume > 1e-6 else { return "the cell's angles enclose no volume" }
        return nil
    }

    private static func radians(_ d: Double) -> Double { d * .pi / 180 }

    /// Cosines of the angles, exact for right angles (so a rectangular cell has exact zeros).
    private static func cosine(_ degrees: Double) -> Double { degrees == 90 ? 0 : cos(radians(degrees)) }

    public var volume: Double {
        let ca = Self.cosine(alpha), cb = Self.cosine(beta), cg = Self.cosine(gamma)
        let v = 1 - ca * ca - cb * cb - cg * cg + 2 * ca * cb * cg
        return v > 0 ? a * b * c * v.squareRoot() : 0
    }

    /// Rows of the orthogonalisation matrix: Cartesian = M · fractional.
    public var orthogonalization: [SIMD3<Double>] {
        let ca = Self.cosine(alpha), cb = Self.cosine(beta), cg = Self.cosine(gamma)
        let sb = (1 - cb * cb).squareRoot(), sg = (1 - cg * cg).squareRoot()
        let cosAlphaStar = sb * sg == 0 ? 0 : (cb * cg - ca) / (sb * sg)
        let sinAlphaStar = max(0, 1 - cosAlphaStar * cosAlphaStar).squareRoot()
        return [SIMD3(a, b * cg, c * cb),
                SIMD3(0, b * sg, -c * sb * cosAlphaStar),
                SIMD3(0, 0, c * sb * sinAlphaStar)]
    }

    /// The orthogonalisation computed once, for work over many positions.
    public var frame: CellFrame {
        let m = orthogonalization
        return CellFrame(x: m[0], y: m[1], z: m[2])
    }

    public func cartesian(_ f: SIMD3<Double>) -> SIMD3<Double> { frame.cartesian(f) }
}

/// A cell's orthogonalisation matrix by rows: fractional → Cartesian without recomputing angles.
public struct CellFrame: Sendable, Equatable {
    public var x: SIMD3<Double>
    public var y: SIMD3<Double>
    public var z: SIMD3<Double>

    @inline(__always)
    public func cartesian(_ f: SIMD3<Double>) -> SIMD3<Double> { SIMD3((x * f).sum(), (y * f).sum(), (z * f).sum()) }

    /// Squared distance in Å² between two fractional positions, between nearest images (each
    /// fractional difference brought into [-0.5, 0.5], as gemmi's `UnitCell.distance_sq` does).
    @inline(__always)
    public func distanceSquared(_ p: SIMD3<Double>, _ q: SIMD3<Double>) -> Double {
        var d = p - q
        d -= d.rounded(.toNearestOrAwayFromZero)
        let v = cartesian(d)
        return (v * v).sum()
    }
}
