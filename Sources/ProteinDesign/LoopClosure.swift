import Foundation
import Geometry

/// A backbone atom by residue and name, with its place in chain order (N, CA, C of residue 0,
/// then of residue 1, …): a torsion moves every atom after it.
struct BackboneAtom: Hashable {
    enum Name: Int { case n = 0, ca, c }
    var residue: Int
    var name: Name
    var order: Int { 3 * residue + name.rawValue }
}

/// φ or ψ of a residue, as a bond the chain can turn about.
struct Torsion: Hashable {
    var residue: Int
    var isPsi: Bool
    static func phi(_ r: Int) -> Torsion { Torsion(residue: r, isPsi: false) }
    static func psi(_ r: Int) -> Torsion { Torsion(residue: r, isPsi: true) }
    /// The first atom (in chain order) it moves: φ turns C of its residue and all after; ψ turns
    /// the next residue's N and all after (and this residue's O).
    var firstMovedOrder: Int { isPsi ? 3 * (residue + 1) : 3 * residue + 2 }
}

extension BackboneChain {
    func position(_ atom: BackboneAtom) -> SIMD3<Double> {
        switch atom.name {
        case .n: n[atom.residue]
        case .ca: ca[atom.residue]
        case .c: c[atom.residue]
        }
    }

    /// Root-mean-square distance (Å) of atoms from their targets.
    func deviation(_ targets: [(atom: BackboneAtom, position: SIMD3<Double>)]) -> Double {
        (targets.reduce(0) { $0 + lengthSquared(position($1.atom) - $1.position) } / Double(max(1, targets.count))).squareRoot()
    }

    /// Cyclic coordinate descent (Canutescu & Dunbrack 2003): turns `torsions` one at a time, each
    /// by the angle that brings the target atoms after it closest to their targets (a closed
    /// form: atan2 of two sums), then moves that residue's (φ, ψ) into the nearest of its
    /// Ramachandran-allowed regions. Sweeps until the targets are within `tolerance` Å (RMSD) or
    /// `sweeps` are done, or it stalls; returns the deviation left. Residues from the first
    /// torsion's through the last target's are rebuilt; those after are left for the caller.
    mutating func close(turning torsions: [Torsion], onto targets: [(atom: BackboneAtom, position: SIMD3<Double>)],
                        allowed: (Int) -> [RamachandranRegion], sweeps: Int = 400, tolerance: Double = 0.05) -> Double {
        guard let last = targets.map(\.atom.residue).max(), !torsions.isEmpty else { return deviation(targets) }
        var left = deviation(targets)
        let first = torsions.map(\.residue).min() ?? last
        var sweep = 0, checkpoint = left
        while sweep < sweeps && left > tolerance {
            for torsion in torsions {
                let r = torsion.residue
                let origin = torsion.isPsi ? ca[r] : n[r]
                let axis = normalized((torsion.isPsi ? c[r] : ca[r]) - origin)
                // Turning by θ takes each moved atom's offset from the axis, ρ, to ρ cos θ + (u × ρ) sin θ;
                // Σ target · that is largest at θ = atan2(Σ f·(u × ρ), Σ f·ρ).
                var sine = 0.0, cosine = 0.0
                for (atom, target) in targets where atom.order >= torsion.firstMovedOrder {
                    let p = position(atom) - origin
                    let rho = p - dot(p, axis) * axis
                    let f = target - origin
                    cosine += dot(f, rho)
                    sine += dot(f, cross(axis, rho))
                }
                guard sine != 0 || cosine != 0 else { continue }
                // A right-handed turn of what follows about N→CA (CA→C) adds to φ (ψ): IUPAC's sign.
                if torsion.isPsi { psi[r] += atan2(sine, cosine) } else { phi[r] += atan2(sine, cosine) }
                (phi[r], psi[r]) = RamachandranRegion.nearestAllowed(phi: phi[r], psi: psi[r], in: allowed(r))
                build(r..<(last + 1), backboneOnly: true)
            }
            left = deviation(targets)
            sweep += 1
            // A start that will not close: still far after 30 sweeps, or less than 2 % closer
            // over the last 20.
            if sweep == 30 && left > 1 { break }
            if sweep % 20 == 0 {
                if left > 0.98 * checkpoint { break }
                checkpoint = left
            }
        }
        build(first..<(last + 1))
        return left
    }
}

extension RamachandranRegion {
    /// How far (degrees) beyond a region's populated box loop closure may go: still well inside
    /// the allowed regions of the Ramachandran plot (Lovell et al. 2003), which are wider than the
    /// boxes the sampling draws from.
    static let closureMargin = 30.0

    /// (φ, ψ) (radians) itself when it lies in one of `regions` widened by `closureMargin`, or else
    /// the nearest point of the nearest such region.
    static func nearestAllowed(phi: Double, psi: Double, in regions: [RamachandranRegion]) -> (Double, Double) {
        func wrapped(_ degrees: Double) -> Double {
            var d = degrees.truncatingRemainder(dividingBy: 360)
            if d > 180 { d -= 360 } else if d <= -180 { d += 360 }
            return d
        }
        let phiDegrees = wrapped(phi * 180 / .pi), psiDegrees = wrapped(psi * 180 / .pi)
        var best = (distance: Double.infinity, phi: phiDegrees, psi: psiDegrees)
        for region in regions {
            let dPhi = wrapped(phiDegrees - region.phi), dPsi = wrapped(psiDegrees - region.psi)
            let phiLimit = region.phiSpread + closureMargin, psiLimit = region.psiSpread + closureMargin
            let clampedPhi = min(max(dPhi, -phiLimit), phiLimit), clampedPsi = min(max(dPsi, -psiLimit), psiLimit)
            let distance = (dPhi - clampedPhi) * (dPhi - clampedPhi) + (dPsi - clampedPsi) * (dPsi - clampedPsi)
            if distance == 0 { return (radians(phiDegrees), radians(psiDegrees)) }
            if distance < best.distance { best = (distance, region.phi + clampedPhi, region.psi + clampedPsi) }
        }
        return (radians(best.phi), radians(best.psi))
    }

    /// The β region as closure treats strand residues next to a turn.
    static let strandRegions = [beta]
}
