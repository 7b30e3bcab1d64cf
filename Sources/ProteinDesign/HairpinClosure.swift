import Foundation
import Geometry

/// Two antiparallel strands are related by a twofold rotation about the sheet's normal through
/// the middle of a hydrogen-bonded residue pair: it takes residue a − k of one strand onto residue
/// b + k of the other, N onto N, Cα onto Cα, C=O onto C=O, and keeps side chains on their side of
/// the sheet. Given the first strand, this is where a β-hairpin's second strand must lie.
struct AntiparallelPartner {
    var center: SIMD3<Double>
    var axis: SIMD3<Double>

    func image(_ x: SIMD3<Double>) -> SIMD3<Double> {
        let v = x - center
        return center + 2 * dot(v, axis) * axis - v
    }

    /// The partner strand on the side residue `a`'s C=O points to, for a strand that runs on from
    /// `a` as in `extended` (the twofold takes a + k onto the partner's b + k, and a − k lies beside
    /// b + k). Its distance is the one that brings the hydrogen bonds of the pairs (N···O; every
    /// other pair, for `pairs` pairs) closest to 2.95 Å: an ideal strand is twisted, so the bonds
    /// far from the turn come out a little shorter than those near it.
    init?(hydrogenBondedAt a: Int, of extended: BackboneChain, strand: Range<Int>, pairs: Int) {
        guard a - 1 >= strand.lowerBound, pairs >= 1 else { return nil }
        let along = Self.screwAxis(from: extended.frame(a - 1), to: extended.frame(a), travelling: extended.ca[a] - extended.ca[a - 1])
        let carbonyl = extended.o[a] - extended.c[a]
        let toward = normalized(carbonyl - dot(carbonyl, along) * along)
        axis = normalized(cross(along, toward))
        center = extended.ca[a]
        var best = (error: Double.infinity, center: center)
        for step in 0...60 {
            center = extended.ca[a] + (1.7 + 0.025 * Double(step)) * toward
            var error = 0.0
            for k in stride(from: 0, to: pairs, by: 2) where a - k >= strand.lowerBound {
                let one = distance(image(extended.n[a + k]), extended.o[a - k]) - 2.95
                let other = distance(extended.n[a - k], image(extended.o[a + k])) - 2.95
                error += one * one + other * other
            }
            if error < best.error { best = (error, center) }
        }
        center = best.center
    }

    /// The axis of the screw motion that takes one residue's frame onto the next: for a strand of
    /// uniform torsions, the axis of the helix its backbone winds about, pointing the way the chain
    /// runs. (A single Cα step is no guide: the trace zigzags by about 20°.) The turn per residue is
    /// near 180°, so the axis comes from R + Rᵀ − 2 cos θ I = 2(1 − cos θ) u uᵀ, which is well
    /// conditioned there.
    static func screwAxis(from a: (SIMD3<Double>, SIMD3<Double>, SIMD3<Double>), to b: (SIMD3<Double>, SIMD3<Double>, SIMD3<Double>),
                          travelling: SIMD3<Double>) -> SIMD3<Double> {
        // R = B Aᵀ for orthonormal frames A, B (columns): R x = Σ_k b_k (a_k · x).
        func rotate(_ x: SIMD3<Double>) -> SIMD3<Double> { b.0 * dot(a.0, x) + b.1 * dot(a.1, x) + b.2 * dot(a.2, x) }
        let columns = [rotate(SIMD3(1, 0, 0)), rotate(SIMD3(0, 1, 0)), rotate(SIMD3(0, 0, 1))]
        let cosine = (columns[0].x + columns[1].y + columns[2].z - 1) / 2
        var best = SIMD3<Double>(1, 0, 0), bestLength = -1.0
        for k in 0..<3 {
            // Column k of R + Rᵀ − 2 cos θ I.
            var v = columns[k] + SIMD3(columns[0][k], columns[1][k], columns[2][k])
            v[k] -= 2 * cosine
            if length(v) > bestLength { bestLength = length(v); best = v }
        }
        let axis = normalized(best)
        return dot(axis, travelling) < 0 ? -axis : axis
    }
}

extension Builder {
    /// A β-hairpin's coil closed onto the partner strand (see `AntiparallelPartner`): for each side
    /// of the first strand, and each starting shape of the coil (the common β-turns for two
    /// residues, then shapes drawn from the coil's Ramachandran regions), cyclic coordinate descent
    /// turns the coil's torsions and the new strand's first φ until the new strand lies where the
    /// twofold puts it; small overlaps left are then polished away. Of the first `wanted` distinct
    /// conformations that are `goodEnough`, returns those whose strands pair most firmly, each as
    /// the torsions of the first strand's last residue to the second strand's end.
    mutating func closeHairpin(first: Range<Int>, coil: Range<Int>, second: Range<Int>, starts: Int, wanted: Int,
                               score: (inout Builder) -> Score, goodEnough: (Score) -> Bool) -> [[(Double, Double)]] {
        guard first.count >= 2, second.count >= 2, !coil.isEmpty else { return [] }
        let i = first.upperBound - 1, j = second.lowerBound
        let residues = Array(i..<second.upperBound)
        let saved = residues.map { (chain.phi[$0], chain.psi[$0]) }
        let sequence = chain.sequence
        func allowed(_ r: Int) -> [RamachandranRegion] {
            coil.contains(r) ? RamachandranRegion.regions(for: sequence[r]) : RamachandranRegion.strandRegions
        }
        var shapes: [[(Double, Double)]] = []
        if coil.count == 2 { shapes = RamachandranRegion.twoResidueTurns.map { $0.map { (radians($0.0), radians($0.1)) } } }
        for _ in 0..<starts { shapes.append(coil.map { RamachandranRegion.sample(allowed($0), using: &random) }) }
        var found: [(torsions: [(Double, Double)], firm: Int)] = []
        // Residue i's own C=O on one side, i − 1's on the other; residue a − k pairs with b + k.
        for a in [i, i - 1] {
            let b = i + j - a
            let pairs = min(a - first.lowerBound + 1, second.upperBound - b)
            guard b + 1 < second.upperBound, a + pairs <= chain.count else { continue }
            // The twofold takes residue a + k onto b + k, atom for atom (both chains run their own
            // way): for k > 0, a + k is the first strand carried on with its own torsions, as the
            // second strand is.
            var extended = chain
            for r in (a + 1)..<(a + pairs) {
                extended.phi[r] = chain.phi[a]; extended.psi[r] = chain.psi[a]; extended.omega[r] = chain.omega[a]
            }
            extended.build((a + 1)..<(a + pairs))
            guard let partner = AntiparallelPartner(hydrogenBondedAt: a, of: extended, strand: first, pairs: pairs) else { continue }
            // Targets: b's frame and each up to three residues on; past them the strand keeps its
            // own torsions, so once they are in place it runs along its partner (and a strand that
            // pairs on both sides, in a meander, is still regular where its next turn starts).
            // From a's frame, fixed, to b's: ψ of i (and φ of i when a is i − 1), the coil's
            // torsions and b's φ, at least six, as kinematic closure needs.
            let reach = min(3, pairs - 1)
            var targets: [(atom: BackboneAtom, position: SIMD3<Double>)] = []
            for k in 0...reach {
                targets += [(BackboneAtom(residue: b + k, name: .n), partner.image(extended.n[a + k])),
                            (BackboneAtom(residue: b + k, name: .ca), partner.image(extended.ca[a + k])),
                            (BackboneAtom(residue: b + k, name: .c), partner.image(extended.c[a + k]))]
            }
            let turning = (a == i ? [Torsion.psi(i)] : [.phi(i), .psi(i)])
                + Array((coil.lowerBound...(b + reach)).flatMap { [Torsion.phi($0), .psi($0)] }.dropLast())
            for shape in shapes where found.count < wanted {
                for (k, r) in residues.enumerated() { (chain.phi[r], chain.psi[r]) = saved[k] }
                for (k, r) in coil.enumerated() { (chain.phi[r], chain.psi[r]) = shape[k] }
                chain.build(i..<(b + reach + 1))
                guard chain.close(turning: turning, onto: targets, allowed: allowed) < closureTolerance else { continue }
                var result = score(&self)
                if !goodEnough(result) { result = polish(turning, allowed: allowed, from: result, score: score, goodEnough: goodEnough) }
                guard goodEnough(result) else { continue }
                let torsions = residues.map { (chain.phi[$0], chain.psi[$0]) }
                // Starts that close to the same conformation count once.
                guard !found.contains(where: { other in
                    zip(other.torsions, torsions).allSatisfy { abs($0.0 - $1.0) < radians(5) && abs($0.1 - $1.1) < radians(5) }
                }) else { continue }
                // How firmly the strands pair: bridges of hydrogen bonds of at least 0.8 kcal/mol,
                // beyond DSSP's 0.5, which other DSSP implementations (mkdssp, pydssp's softened
                // bonds) then see as well.
                found.append((torsions, chain.bridges(between: second, and: first, placed: second.upperBound, energy: -0.8)))
            }
        }
        for (k, r) in residues.enumerated() { (chain.phi[r], chain.psi[r]) = saved[k] }
        chain.build(i..<second.upperBound)
        let firmest = found.map(\.firm).max() ?? 0
        return found.filter { $0.firm == firmest }.map(\.torsions)
    }

    /// Turns `torsions` one at a time by a few degrees either way, keeping each turn that lowers
    /// the score, in steps from 6° down to 0.75°: what closure leaves (a few tenths of an ångström
    /// of overlap, a hydrogen bond slightly long) is removed without the search's randomness.
    mutating func polish(_ torsions: [Torsion], allowed: (Int) -> [RamachandranRegion], from start: Score,
                         score: (inout Builder) -> Score, goodEnough: (Score) -> Bool) -> Score {
        var best = start
        for step in [6.0, 3.0, 1.5, 0.75] {
            var improved = true, passes = 0
            while improved && passes < 4 {
                improved = false
                passes += 1
                for torsion in torsions {
                    let r = torsion.residue
                    let old = (chain.phi[r], chain.psi[r])
                    for sign in [1.0, -1.0] {
                        if torsion.isPsi { chain.psi[r] = old.1 + sign * radians(step) } else { chain.phi[r] = old.0 + sign * radians(step) }
                        (chain.phi[r], chain.psi[r]) = RamachandranRegion.nearestAllowed(phi: chain.phi[r], psi: chain.psi[r], in: allowed(r))
                        let candidate = score(&self)
                        if candidate < best {
                            best = candidate
                            improved = true
                            break
                        }
                        (chain.phi[r], chain.psi[r]) = old
                    }
                    if goodEnough(best) { _ = score(&self); return best }
                }
            }
        }
        _ = score(&self)   // positions for the torsions kept
        return best
    }
}

/// How close (Å RMSD) closure must bring the new strand to its place before polishing.
private let closureTolerance = 0.35
