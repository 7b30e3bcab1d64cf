import Foundation
import Geometry

/// Ideal backbone geometry of Engh & Huber (1991), Å and degrees: what the builder uses and what
/// the tests check designs against.
public enum IdealGeometry {
    public static let bondNCA = 1.458
    public static let bondCAC = 1.525
    public static let bondCN = 1.329       // the peptide bond
    public static let bondCO = 1.231
    public static let bondCACB = 1.530
    public static let glycineBondNCA = 1.451
    public static let glycineBondCAC = 1.516

    public static let angleNCAC = 111.2
    public static let glycineAngleNCAC = 113.1
    public static let angleCACN = 116.2
    public static let angleCNCA = 121.7
    public static let angleCACO = 120.1
    public static let angleNCACB = 110.5
    public static let angleCCACB = 110.1

    /// C–N–CA–CB torsion of an L-amino acid that gives C–CA–CB = 110.1° with the angles above
    /// (solved numerically once; real structures show −122° to −127°).
    public static let torsionCNCACB = -122.58

    /// ω of a trans peptide.
    public static let omega = 180.0
}

/// Places atom D from A, B, C: |CD| = `bond`, angle B–C–D = `angle`, dihedral A–B–C–D = `torsion`
/// (radians; IUPAC sign). The natural-extension reference frame way of building chains.
@inline(__always)
func place(_ a: SIMD3<Double>, _ b: SIMD3<Double>, _ c: SIMD3<Double>, bond: Double, angle: Double, torsion: Double) -> SIMD3<Double> {
    let bc = normalized(c - b)
    let n = normalized(cross(b - a, bc))
    let m = cross(n, bc)
    let sinAngle = sin(angle)
    let d = SIMD3(-bond * cos(angle), bond * sinAngle * cos(torsion), bond * sinAngle * sin(torsion))
    return c + d.x * bc + d.y * m + d.z * n
}

@inline(__always) func radians(_ degrees: Double) -> Double { degrees * .pi / 180 }

/// The dihedral A–B–C–D in degrees (IUPAC sign), for checks.
public func dihedralDegrees(_ a: SIMD3<Double>, _ b: SIMD3<Double>, _ c: SIMD3<Double>, _ d: SIMD3<Double>) -> Double {
    let b1 = b - a, b2 = c - b, b3 = d - c
    let n1 = cross(b1, b2), n2 = cross(b2, b3)
    let x = dot(n1, n2), y = dot(cross(n1, n2), normalized(b2))
    return atan2(y, x) * 180 / .pi
}
