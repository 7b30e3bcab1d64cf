import Foundation
import Geometry
import Molecule

/// A hydrogen placed from three named heavy atoms of its residue, measured in the CCD's ideal
/// coordinates (`SideChainGeometry.hydrogens`, generated): bonded to `parent` at `bond` Å, at
/// `angle` from b–parent, and at dihedral `torsion` about a–b–parent–H.
struct HydrogenAtom: Sendable {
    let name: String
    let parent: String, b: String, a: String
    /// Å, and radians.
    let bond: Double, angle: Double, torsion: Double

    init(_ name: String, on parent: String, _ b: String, _ a: String, bond: Double, angle: Double, torsion: Double) {
        self.name = name
        (self.parent, self.b, self.a) = (parent, b, a)
        self.bond = bond
        self.angle = radians(angle)
        self.torsion = radians(torsion)
    }
}

struct PlacedHydrogen {
    var name: String
    var position: SIMD3<Double>
    var polar: Bool
}

extension BackboneChain {
    /// The N–H bond (Å), the CCD's amide and ammonium N–H.
    static let bondNH = 1.01

    /// The amide H of residue `i` (after the first): on the outer bisector of C(i−1)–N–CA, in the
    /// peptide plane.
    func amideHydrogen(_ i: Int) -> SIMD3<Double> {
        n[i] + Self.bondNH * normalized(normalized(n[i] - c[i - 1]) + normalized(n[i] - ca[i]))
    }

    /// Residue `i`'s hydrogens, named, placed on its heavy atoms (`heavyAtoms(of:sideChain:)`).
    /// The amide H lies on the outer bisector of C(i−1)–N–CA, in the peptide plane, as Reduce
    /// and pydssp put it; proline has none. The chain's first N is the charged amino end of a
    /// protein at pH 7: three hydrogens staggered about CA–N (H1, H2, H3), or two on proline's
    /// ring N (H2, H3).
    /// `polar`: bonded to N or O, so it may come as close as a hydrogen bond to an acceptor.
    func hydrogens(of i: Int, heavy: [(name: String, element: Element, position: SIMD3<Double>)]) -> [PlacedHydrogen] {
        var at: [String: SIMD3<Double>] = [:]
        for atom in heavy { at[atom.name] = atom.position }
        var out: [PlacedHydrogen] = []
        if i == 0 {
            if sequence[i] == "P", let cd = at["CD"] {
                // Two hydrogens on the ring's N, tetrahedral: in the plane that bisects CA–N–CD.
                let outward = normalized(normalized(n[i] - ca[i]) + normalized(n[i] - cd))
                let normal = normalized(cross(ca[i] - n[i], cd - n[i]))
                let half = radians(109.5 / 2)
                for (name, side) in [("H2", 1.0), ("H3", -1.0)] {
                    out.append(PlacedHydrogen(name: name, position: n[i] + Self.bondNH * (cos(half) * outward + side * sin(half) * normal), polar: true))
                }
            } else {
                for (name, torsion) in [("H1", 180.0), ("H2", 60), ("H3", -60)] {
                    out.append(PlacedHydrogen(name: name, position: place(c[i], ca[i], n[i], bond: Self.bondNH, angle: radians(109.5), torsion: radians(torsion)), polar: true))
                }
            }
        } else if sequence[i] != "P" {
            out.append(PlacedHydrogen(name: "H", position: amideHydrogen(i), polar: true))
        }
        for h in SideChainGeometry.hydrogens[sequence[i]] ?? [] {
            guard let x = at[h.parent], let b = at[h.b], let a = at[h.a] else { continue }
            out.append(PlacedHydrogen(name: h.name, position: place(a, b, x, bond: h.bond, angle: h.angle, torsion: h.torsion),
                                      polar: h.parent.hasPrefix("N") || h.parent.hasPrefix("O")))
        }
        return out
    }
}

/// How close a hydrogen may come to atoms of other residues while side chains turn to clear it
/// (Å): van der Waals contact less 0.4 Å, the overlap MolProbity's probe calls a clash (radii H
/// 1.17, C and S 1.75, N 1.55, O 1.40 Å; the same table as test_designs.py). A polar hydrogen may
/// come as close as a hydrogen bond (1.6 Å) to an N or O.
private enum HydrogenLimit {
    static let toHydrogen = 1.94
    static func heavy(polarHydrogen: Bool, _ kind: AtomKind) -> Double {
        switch kind {
        case .n, .sideChainNitrogen: polarHydrogen ? 1.6 : 2.32
        case .o, .sideChainOxygen: polarHydrogen ? 1.6 : 2.17
        default: 2.52
        }
    }
}

extension SideChainPacker {
    /// Residue `r`'s hydrogens with the side chain `sideChain` (its atoms beyond CB).
    func hydrogens(of r: Int, sideChain: [SIMD3<Double>]) -> [PlacedHydrogen] {
        chain.hydrogens(of: r, heavy: chain.heavyAtoms(of: r, sideChain: sideChain))
    }

    /// Side chains turned so their hydrogens clear other residues' atoms, for a design that shows
    /// its hydrogens. Packing (and so the verdict) sees heavy atoms alone; here each residue whose
    /// hydrogens bump into another's atoms takes, of the rotamers whose heavy atoms overlap no
    /// more than its packed one and clash with no more residues, the one whose hydrogens and side
    /// chain overlap least with others'. Only the library's rotamers and χ nudged by up to 30° are
    /// offered: the packing's wider grid holds eclipsed shapes that put a side chain's hydrogens
    /// on its own backbone's.
    func clearHydrogens(_ packed: SideChains) -> SideChains {
        var chosen = packed.positions
        var light = (0..<chain.count).map { hydrogens(of: $0, sideChain: chosen[$0]) }
        var sideGrid = AtomGrid(cellSize: 3.0), lightGrid = AtomGrid(cellSize: 3.0)
        func fill() {
            sideGrid = AtomGrid(cellSize: 3.0)
            lightGrid = AtomGrid(cellSize: 3.0)
            for r in 0..<chain.count { insertSideChain(r, chosen[r], light[r], byElement: true, into: &sideGrid, &lightGrid) }
        }
        fill()
        for pass in 0..<6 {
            let bumping = (0..<chain.count).filter { hydrogenOverlap(chosen[$0], light[$0], residue: $0, sideGrid: sideGrid, lightGrid: lightGrid) > 0 }
            if bumping.isEmpty { break }
            for r in bumping {
                let allowed = overlap(of: chosen[r], residue: r, sideGrid: sideGrid)
                let clashesAllowed = clashCount(of: chosen[r], residue: r, sideGrid: sideGrid).0
                var best = hydrogenOverlap(chosen[r], light[r], residue: r, sideGrid: sideGrid, lightGrid: lightGrid)
                for chis in rotamerOptions(r, level: min(pass, 1)) where best > 0 {
                    let atoms = chain.sideChain(r, chis: chis)
                    guard overlap(of: atoms, residue: r, sideGrid: sideGrid) <= allowed,
                          clashCount(of: atoms, residue: r, sideGrid: sideGrid).0 <= clashesAllowed else { continue }
                    let h = hydrogens(of: r, sideChain: atoms)
                    let bump = hydrogenOverlap(atoms, h, residue: r, sideGrid: sideGrid, lightGrid: lightGrid)
                    if bump < best { (best, chosen[r], light[r]) = (bump, atoms, h) }
                }
                fill()
            }
        }
        var cleared = packed
        cleared.positions = chosen
        return cleared
    }

    private static let backboneHydrogens: Set<String> = ["H", "H1", "H2", "H3", "HA", "HA2", "HA3"]
    /// Greek letters of the atoms a hydrogen sits on, from CA outwards.
    private static let remoteness: [Character] = ["A", "B", "G", "D", "E", "Z", "H"]

    /// How far residue `r`'s hydrogens, and its side-chain atoms, come within the limits of other
    /// residues' atoms and hydrogens, summed (Å). Hydrogens of neighbouring residues are compared
    /// with each other only: a hydrogen is within three bonds of some of its neighbour's atoms.
    func hydrogenOverlap(_ sideChain: [SIMD3<Double>], _ light: [PlacedHydrogen], residue r: Int,
                                 sideGrid: AtomGrid, lightGrid: AtomGrid) -> Double {
        var total = 0.0
        // Squared: one deep bump costs more than several grazing ones.
        func add(_ d: Double, _ limit: Double) { if d < limit { total += (limit - d) * (limit - d) } }
        for h in light {
            lightGrid.visit(near: h.position) { e in
                if e.residue != Int32(r) { add(length(h.position - e.position), HydrogenLimit.toHydrogen) }
                return true
            }
            for grid in [clashGrid, sideGrid] {
                grid.visit(near: h.position) { e in
                    if abs(Int(e.residue) - r) >= 2 { add(length(h.position - e.position), HydrogenLimit.heavy(polarHydrogen: h.polar, e.kind)) }
                    return true
                }
            }
        }
        // Within the residue: its backbone hydrogens against side-chain ones four or more bonds away
        // (the amide H from HB on, HA from HG on), which the rotamer decides.
        for h in light where Self.backboneHydrogens.contains(h.name) {
            let from = h.name.hasPrefix("HA") ? 2 : 1
            for other in light where other.name.count > 1 && Self.remoteness.dropFirst(from).contains(other.name[other.name.index(after: other.name.startIndex)]) {
                add(length(h.position - other.position), HydrogenLimit.toHydrogen)
            }
        }
        for (atom, p) in zip(SideChainGeometry.atoms[chain.sequence[r]] ?? [], sideChain) {
            let kind = AtomKind.sideChain(atom.element)
            lightGrid.visit(near: p) { e in
                if abs(Int(e.residue) - r) >= 2 { add(length(p - e.position), HydrogenLimit.heavy(polarHydrogen: e.kind == .polarHydrogen, kind)) }
                return true
            }
        }
        return total
    }
}
