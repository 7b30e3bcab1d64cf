import Foundation
import Geometry

/// A polypeptide backbone (N, CA, C, O, and CB where the residue has one) built from φ/ψ/ω with
/// ideal bond lengths and angles. Residues are placed one after the other, each from the three
/// atoms before it, so changing the torsions of a stretch and rebuilding from there moves
/// everything after it rigidly: what the coil search relies on.
struct BackboneChain {
    let sequence: [Character]
    /// Torsions in radians; φ of the first residue and ψ, ω of the last do not place anything
    /// except the last residue's O (from ψ).
    var phi: [Double]
    var psi: [Double]
    var omega: [Double]
    var n: [SIMD3<Double>]
    var ca: [SIMD3<Double>]
    var c: [SIMD3<Double>]
    var o: [SIMD3<Double>]
    var cb: [SIMD3<Double>]

    init(sequence: [Character]) {
        self.sequence = sequence
        let count = sequence.count
        phi = [Double](repeating: radians(-60), count: count)
        psi = [Double](repeating: radians(-45), count: count)
        omega = [Double](repeating: radians(IdealGeometry.omega), count: count)
        n = [SIMD3<Double>](repeating: .zero, count: count)
        ca = n; c = n; o = n; cb = n
    }

    var count: Int { sequence.count }

    func isGlycine(_ i: Int) -> Bool { sequence[i] == "G" }

    /// Places residues `range` (those before it must be placed already).
    mutating func build(_ range: Range<Int>) { build(range, backboneOnly: false) }

    /// `backboneOnly`: N, CA and C alone, what loop closure moves and measures (O and CB are
    /// placed once it is done).
    mutating func build(_ range: Range<Int>, backboneOnly: Bool) {
        let g = IdealGeometry.self
        let caCN = radians(g.angleCACN), cNCA = radians(g.angleCNCA), caCO = radians(g.angleCACO)
        let nCACB = radians(g.angleNCACB), cbTorsion = radians(g.torsionCNCACB)
        // Proline's CB sits closer to N, as its ring needs (the CCD's ideal geometry).
        let prolineNCACB = radians(SideChainGeometry.prolineAngleNCACB), prolineCBTorsion = radians(SideChainGeometry.prolineTorsionCNCACB)
        for i in range {
            let glycine = isGlycine(i)
            let bondNCA = glycine ? g.glycineBondNCA : g.bondNCA
            let bondCAC = glycine ? g.glycineBondCAC : g.bondCAC
            let nCAC = radians(glycine ? g.glycineAngleNCAC : g.angleNCAC)
            if i == 0 {
                n[0] = .zero
                ca[0] = SIMD3(bondNCA, 0, 0)
                c[0] = ca[0] + bondCAC * SIMD3(-cos(nCAC), sin(nCAC), 0)
            } else {
                n[i] = place(n[i - 1], ca[i - 1], c[i - 1], bond: g.bondCN, angle: caCN, torsion: psi[i - 1])
                ca[i] = place(ca[i - 1], c[i - 1], n[i], bond: bondNCA, angle: cNCA, torsion: omega[i - 1])
                c[i] = place(c[i - 1], n[i], ca[i], bond: bondCAC, angle: nCAC, torsion: phi[i])
            }
            if backboneOnly { continue }
            // O lies in the peptide plane, trans to the next N: ψ + 180° from this residue's N.
            o[i] = place(n[i], ca[i], c[i], bond: g.bondCO, angle: caCO, torsion: psi[i] + .pi)
            if sequence[i] == "P" {
                cb[i] = place(c[i], n[i], ca[i], bond: g.bondCACB, angle: prolineNCACB, torsion: prolineCBTorsion)
            } else if !glycine {
                cb[i] = place(c[i], n[i], ca[i], bond: g.bondCACB, angle: nCACB, torsion: cbTorsion)
            }
        }
    }

    /// The heavy atoms of residue `i` in file order, with their names.
    func atoms(of i: Int) -> [(name: String, position: SIMD3<Double>)] {
        var out: [(String, SIMD3<Double>)] = [("N", n[i]), ("CA", ca[i]), ("C", c[i]), ("O", o[i])]
        if !isGlycine(i) { out.append(("CB", cb[i])) }
        return out
    }

    /// An orthonormal frame on residue `i`'s N, CA and C (columns: along CA→C, in the N-CA-C plane,
    /// normal to it), for comparing residues' orientations.
    func frame(_ i: Int) -> (SIMD3<Double>, SIMD3<Double>, SIMD3<Double>) {
        let x = normalized(c[i] - ca[i])
        let inPlane = n[i] - ca[i]
        let y = normalized(inPlane - dot(inPlane, x) * x)
        return (x, y, cross(x, y))
    }

    /// CB, or CA for glycine: where the side chain points, for contacts between pieces.
    func sideChainAnchor(_ i: Int) -> SIMD3<Double> { isGlycine(i) ? ca[i] : cb[i] }
}
