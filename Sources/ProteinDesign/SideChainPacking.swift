import Foundation
import Geometry
import Molecule

/// Where the side chains' ideal geometry lives (generated from the CCD: `SideChainGeometry.swift`).
enum SideChainGeometry {}

/// One side-chain heavy atom beyond CB, placed from three atoms of its residue placed before it.
struct SideChainAtom: Sendable {
    let name: String
    let element: Element
    /// The parents, as indices into the residue's atoms: 0 N, 1 CA, 2 C, 3 O, 4 CB, then the
    /// side-chain atoms in order.
    let a: Int, b: Int, c: Int
    /// Å, and radians.
    let bond: Double, angle: Double
    /// The dihedral a–b–c–atom (radians): an offset from χ `chi`, or the dihedral itself when
    /// `chi` is 0 (rings and planar groups).
    let torsion: Double
    let chi: Int

    init(_ name: String, _ element: Element, _ a: Int, _ b: Int, _ c: Int, bond: Double, angle: Double, torsion: Double, chi: Int) {
        self.name = name
        self.element = element
        (self.a, self.b, self.c) = (a, b, c)
        self.bond = bond
        self.angle = radians(angle)
        self.torsion = radians(torsion)
        self.chi = chi
    }
}

extension BackboneChain {
    /// The side-chain atoms of residue `i` beyond CB with the given χ angles (degrees); none for
    /// glycine and alanine.
    func sideChain(_ i: Int, chis: [Double]) -> [SIMD3<Double>] {
        guard let tree = SideChainGeometry.atoms[sequence[i]] else { return [] }
        var atoms = [n[i], ca[i], c[i], o[i], cb[i]]
        for atom in tree {
            let torsion = atom.chi == 0 ? atom.torsion : radians(chis[atom.chi - 1]) + atom.torsion
            atoms.append(place(atoms[atom.a], atoms[atom.b], atoms[atom.c], bond: atom.bond, angle: atom.angle, torsion: torsion))
        }
        return Array(atoms[5...])
    }

    /// Residue `i`'s heavy atoms in file order, named and with their elements: the backbone and
    /// CB, then `sideChain` (its atoms beyond CB, from `sideChain(_:chis:)`; empty for none).
    func heavyAtoms(of i: Int, sideChain: [SIMD3<Double>]) -> [(name: String, element: Element, position: SIMD3<Double>)] {
        let backbone = atoms(of: i).map { atom in
            (name: atom.name, element: atom.name == "N" ? Element.nitrogen : atom.name == "O" ? .oxygen : .carbon, position: atom.position)
        }
        return backbone + zip(SideChainGeometry.atoms[sequence[i]] ?? [], sideChain).map { (name: $0.name, element: $0.element, position: $1) }
    }

    /// Residue `i`'s most common rotamer (proline's ring closed), or none.
    func commonRotamer(_ i: Int) -> [Double] {
        guard let chis = RotamerLibrary.rotamers[sequence[i]]?.first else { return [] }
        return sequence[i] == "P" ? closedProline(i, chi1: chis[0]) ?? [] : chis
    }

    /// Proline's χ1 and the χ2 that closes its ring, CD at the N–CD bond's length from N within
    /// 0.02 Å (a scan in 1° steps, then halving steps), or nil when no χ2 does.
    func closedProline(_ i: Int, chi1: Double) -> [Double]? {
        func error(_ chi2: Double) -> Double {
            abs(length(sideChain(i, chis: [chi1, chi2])[1] - n[i]) - SideChainGeometry.prolineBondNCD)
        }
        // The ring puckers the other way from χ1: search the opposite sign.
        var best = stride(from: -60.0, through: 60.0, by: 1).filter { $0 * chi1 <= 0 }.min { error($0) < error($1) } ?? 0
        var step = 0.5
        while step > 0.01 {
            for candidate in [best - step, best + step] where error(candidate) < error(best) { best = candidate }
            step /= 2
        }
        return error(best) < 0.02 ? [chi1, best] : nil
    }
}

/// The side chains chosen for a built backbone: per residue, its atoms beyond CB and their places.
struct SideChains {
    var positions: [[SIMD3<Double>]]
    /// Heavy-atom pairs still closer than allowed after packing (none in a valid design).
    var clashes = 0
    /// The first residue whose side chain clashes, and the residue it clashes with.
    var worst: (residue: Int, partner: Int)?
}

private let passes = 4
/// Closest approach between atoms of neighbouring residues (one apart) that the check of
/// designs does not see, kept well away from bonded distances: only absurd overlaps count.
private let neighbourLimit = 2.7

/// Packs side chains on a placed backbone: rotamers chosen residue by residue against the backbone
/// (`clashGrid`) and the side chains already placed, hydrogens weighed when asked.
struct SideChainPacker {
    let chain: BackboneChain
    let clashGrid: AtomGrid
}

extension SideChainPacker {
    /// Puts a side chain on every residue from the rotamer library, avoiding clashes: each residue
    /// in turn takes its most common rotamer that clashes with nothing placed (backbone, CB and the
    /// side chains before it), else the one that overlaps least; residues left clashing are
    /// chosen again against all the others, then with their χ nudged by up to 30°.
    /// `hydrogens`: the residues' hydrogens are weighed too, far below any heavy-atom overlap (for
    /// a design shown with its hydrogens; the verdict is judged on a packing without them).
    func packSideChains(hydrogens: Bool = false) -> SideChains {
        var chosen = [[SIMD3<Double>]](repeating: [], count: chain.count)
        var light = [[PlacedHydrogen]](repeating: [], count: chain.count)
        var sideGrid = AtomGrid(cellSize: 3.0), lightGrid = AtomGrid(cellSize: 3.0)
        func insert(_ r: Int) { insertSideChain(r, chosen[r], light[r], byElement: hydrogens, into: &sideGrid, &lightGrid) }
        func cost(_ atoms: [SIMD3<Double>], _ h: [PlacedHydrogen], _ r: Int) -> Double {
            let heavy = overlap(of: atoms, residue: r, sideGrid: sideGrid)
            guard hydrogens else { return heavy }
            return 100 * heavy + hydrogenOverlap(atoms, h, residue: r, sideGrid: sideGrid, lightGrid: lightGrid)
        }
        func choose(_ r: Int, level: Int) -> ([SIMD3<Double>], [PlacedHydrogen]) {
            var best: ([SIMD3<Double>], [PlacedHydrogen]) = ([], []), bestCost = Double.infinity
            for chis in rotamerOptions(r, level: level) {
                let atoms = chain.sideChain(r, chis: chis)
                let h = hydrogens ? self.hydrogens(of: r, sideChain: atoms) : []
                let c = cost(atoms, h, r)
                if c < bestCost { (best, bestCost) = ((atoms, h), c) }
                if c == 0 { break }
            }
            return best
        }
        for r in 0..<chain.count {
            (chosen[r], light[r]) = choose(r, level: 0)
            if hydrogens && chosen[r].isEmpty { light[r] = self.hydrogens(of: r, sideChain: []) }
            insert(r)
        }
        for pass in 0..<passes {
            let clashing = (0..<chain.count).filter { cost(chosen[$0], light[$0], $0) > 0 }
            if clashing.isEmpty { break }
            for r in clashing {
                // Hydrogens alone never call for the packing's widest grid of χ (eclipsed shapes).
                let level = hydrogens && overlap(of: chosen[r], residue: r, sideGrid: sideGrid) == 0 ? min(pass, 1) : pass
                let (atoms, h) = choose(r, level: level)
                if !atoms.isEmpty || !hydrogens { (chosen[r], light[r]) = (atoms, h) }
                // The grids have no way to move one residue's atoms: they are filled again.
                sideGrid = AtomGrid(cellSize: 3.0)
                lightGrid = AtomGrid(cellSize: 3.0)
                for s in 0..<chain.count { insert(s) }
            }
        }
        var packed = SideChains(positions: chosen)
        for r in 0..<chain.count {
            let (count, partner) = clashCount(of: chosen[r], residue: r, sideGrid: sideGrid)
            packed.clashes += count
            if let partner, packed.worst == nil { packed.worst = (r, partner) }
        }
        return packed
    }

    /// Puts residue `r`'s side-chain atoms beyond CB (told apart by element where `byElement`, for
    /// comparing hydrogens with them) and its hydrogens into the grids the packing queries.
    func insertSideChain(_ r: Int, _ atoms: [SIMD3<Double>], _ light: [PlacedHydrogen], byElement: Bool,
                         into sideGrid: inout AtomGrid, _ lightGrid: inout AtomGrid) {
        for (atom, p) in zip(SideChainGeometry.atoms[chain.sequence[r]] ?? [], atoms) {
            sideGrid.insert(p, residue: r, kind: byElement ? .sideChain(atom.element) : .sideChain)
        }
        for h in light { lightGrid.insert(h.position, residue: r, kind: h.polar ? .polarHydrogen : .hydrogen) }
    }

    /// The χ angles residue `r` may take. Level 0: the library's rotamers; 1: each χ nudged by
    /// ±15° or ±30°; 2: χ1 and χ2 together on a 10° grid within ±40° of each rotamer.
    func rotamerOptions(_ r: Int, level: Int) -> [[Double]] {
        guard var base = RotamerLibrary.rotamers[chain.sequence[r]] else { return [] }
        if level == 1 {
            base = base.flatMap { chis in
                [chis] + [-30.0, -15, 15, 30].flatMap { d in (0..<chis.count).map { k in chis.enumerated().map { $0.offset == k ? $0.element + d : $0.element } } }
            }
        } else if level >= 2 {
            let steps = stride(from: -40.0, through: 40, by: 10)
            base = base.flatMap { chis in
                steps.flatMap { d1 in (chis.count > 1 ? Array(steps) : [0]).map { d2 in
                    chis.enumerated().map { $0.offset == 0 ? $0.element + d1 : $0.offset == 1 ? $0.element + d2 : $0.element }
                } }
            }
        }
        // Proline: only puckers whose ring closes (a nudged χ1 may leave none that does).
        if chain.sequence[r] == "P" { return base.compactMap { chain.closedProline(r, chi1: $0[0]) } }
        return base
    }

    /// How far side-chain `atoms` of residue `r` overlap other residues' atoms (backbone, CB and
    /// the other side chains), summed (Å).
    func overlap(of atoms: [SIMD3<Double>], residue r: Int, sideGrid: AtomGrid) -> Double {
        let proline = chain.sequence[r] == "P"
        var total = ownBackboneOverlap(of: atoms, residue: r)
        for p in atoms {
            for grid in [clashGrid, sideGrid] {
                grid.visit(near: p) { e in
                    let s = Int(e.residue), apart = abs(s - r)
                    // Proline's ring is bonded to the residue before it (through N).
                    guard apart > 0, !(proline && s == r - 1) else { return true }
                    let limit = apart == 1 ? neighbourLimit : AtomKind.minimumDistance(.sideChain, e.kind)
                    let d = length(p - e.position)
                    if d < limit { total += limit - d }
                    return true
                }
            }
        }
        return total
    }

    /// How far side-chain `atoms` of residue `r` come within its own N, C and O (three or more
    /// bonds away; a χ nudged far from its rotamer can turn a side chain onto them): 2.6 Å for a
    /// polar pair (N or O with N or O, as close as a hydrogen bond), else neighbourLimit. Proline's
    /// ring is bonded to its N, which is left out.
    func ownBackboneOverlap(of atoms: [SIMD3<Double>], residue r: Int) -> Double {
        let tree = SideChainGeometry.atoms[chain.sequence[r]] ?? []
        var backbone: [(position: SIMD3<Double>, polar: Bool)] = [(chain.c[r], false), (chain.o[r], true)]
        if chain.sequence[r] != "P" { backbone.append((chain.n[r], true)) }
        var total = 0.0
        for (atom, p) in zip(tree, atoms) {
            let polar = atom.element == .nitrogen || atom.element == .oxygen
            for b in backbone {
                let limit = polar && b.polar ? 2.6 : neighbourLimit
                let d = length(p - b.position)
                if d < limit { total += limit - d }
            }
        }
        return total
    }

    /// Pairs with residues at least two away closer than allowed, what the design check counts
    /// (a pair of side-chain atoms once, from its lower residue).
    func clashCount(of atoms: [SIMD3<Double>], residue r: Int, sideGrid: AtomGrid) -> (Int, partner: Int?) {
        var count = 0
        var partner: Int?
        for p in atoms {
            for (grid, isSide) in [(clashGrid, false), (sideGrid, true)] {
                grid.visit(near: p) { e in
                    let s = Int(e.residue)
                    if abs(s - r) >= 2 && (!isSide || s > r) && length(p - e.position) < AtomKind.minimumDistance(.sideChain, e.kind) {
                        count += 1
                        partner = partner ?? s
                    }
                    return true
                }
            }
        }
        return (count, partner)
    }
}
