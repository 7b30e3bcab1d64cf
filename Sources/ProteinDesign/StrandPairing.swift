import Foundation
import Geometry
import Molecule

/// How well two strands of a chain pair: the measures the search scores and the verdict reports.
extension BackboneChain {
    /// Σ over the new strand's residues of (distance to the nearest partner Cα − 4.8 Å)², each
    /// capped at 25: zero when the strands lie side by side at pairing distance. It guides the
    /// search towards a hairpin before any hydrogen bond has formed.
    func misalignment(of new: Range<Int>, beside partner: Range<Int>) -> Double {
        var sum = 0.0
        for j in new {
            var nearest = Double.infinity
            for i in partner { nearest = min(nearest, length(ca[j] - ca[i])) }
            sum += min((nearest - 4.8) * (nearest - 4.8), 25)
        }
        return sum
    }

    /// β-bridges between two strands as DSSP defines them, with Hbond(a, b) for C=O of a ··· H-N of b:
    /// antiparallel (i, j) when Hbond(i, j) and Hbond(j, i), or Hbond(i−1, j+1) and Hbond(j−1, i+1);
    /// parallel when Hbond(i−1, j) and Hbond(j, i+1), or Hbond(j−1, i) and Hbond(i, j+1).
    /// Only residues below `placed` exist yet.
    func bridges(between new: Range<Int>, and partner: Range<Int>, placed: Int, parallel: Bool = false, energy: Double = -0.5) -> Int {
        func hbond(_ a: Int, _ d: Int) -> Bool {
            a >= 0 && a < placed && d < placed && abs(a - d) >= 2 && isHydrogenBonded(donor: d, acceptor: a, withinCA: 8, energy: energy)
        }
        var count = 0
        for i in partner {
            for j in new where j - i >= 3 {
                let bridged = parallel
                    ? (hbond(i - 1, j) && hbond(j, i + 1)) || (hbond(j - 1, i) && hbond(i, j + 1))
                    : (hbond(i, j) && hbond(j, i)) || (hbond(i - 1, j + 1) && hbond(j - 1, i + 1))
                if bridged { count += 1 }
            }
        }
        return count
    }

    /// Backbone hydrogen bonds (DSSP's energy below −0.5 kcal/mol) in either direction between
    /// the residues of a new strand and earlier strand residues, not counting those of residues
    /// fewer than four apart: a turn closes with those whether or not its strands pair.
    func hydrogenBonds(between new: Range<Int>, and earlier: [Int]) -> Int {
        func bonded(donor d: Int, acceptor a: Int) -> Bool {
            abs(d - a) >= 4 && isHydrogenBonded(donor: d, acceptor: a, withinCA: 7)
        }
        var count = 0
        for r in new {
            for e in earlier {
                if bonded(donor: r, acceptor: e) { count += 1 }
                if bonded(donor: e, acceptor: r) { count += 1 }
            }
        }
        return count
    }

    /// Whether N-H of `d` bonds to C=O of `a` by DSSP's energy (below `energy`, DSSP's own −0.5 kcal/mol unless asked), for residues
    /// whose Cα are closer than `withinCA`; proline and the first residue have no amide hydrogen.
    /// The bond must hold wherever the amide H is put: DSSP's place (opposite the previous C=O)
    /// and the bisector of C–N–CA that pydssp and others use, so independent DSSPs agree.
    func isHydrogenBonded(donor d: Int, acceptor a: Int, withinCA: Double, energy: Double = -0.5) -> Bool {
        guard d > 0, sequence[d] != "P", length(ca[d] - ca[a]) < withinCA else { return false }
        func f(_ v: SIMD3<Double>) -> SIMD3<Float> { SIMD3<Float>(Float(v.x), Float(v.y), Float(v.z)) }
        let donorN = f(n[d]), acceptorC = f(c[a]), acceptorO = f(o[a])
        let h = DSSP.amideHydrogen(n: donorN, previousC: f(c[d - 1]), previousO: f(o[d - 1]))
        guard DSSP.hydrogenBondEnergy(n: donorN, h: h, c: acceptorC, o: acceptorO) < Float(energy) else { return false }
        return DSSP.hydrogenBondEnergy(n: donorN, h: f(amideHydrogen(d)), c: acceptorC, o: acceptorO) < Float(energy)
    }
}
