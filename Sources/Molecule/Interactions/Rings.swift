import Geometry

/// An aromatic ring: its atoms, centre and unit normal.
struct AromaticRing {
    var atoms: [Int]
    var center: SIMD3<Float>
    var normal: SIMD3<Float>

    init?(atoms: [Int], positions: [SIMD3<Float>]) {
        guard atoms.count >= 5 else { return nil }
        self.atoms = atoms
        center = atoms.reduce(SIMD3<Float>.zero) { $0 + positions[$1] } / Float(atoms.count)
        // From atoms 0, 2 and 4, as a planar ring allows.
        let n = cross(positions[atoms[2]] - positions[atoms[0]], positions[atoms[4]] - positions[atoms[0]])
        guard length(n) > 1e-6 else { return nil }
        normal = normalized(n)
    }
}

/// Aromatic rings: the amino acids' by name (Phe, Tyr, Trp's two, His), any other residue's
/// 5- and 6-membered rings that are planar (every atom's plane with its two ring neighbours within
/// the criteria's deviation of every other's), as PLIP takes rings its chemistry does not call aromatic.
enum RingFinder {
    static let aminoAcidRings: [String: [[String]]] = [
        "PHE": [["CG", "CD1", "CE1", "CZ", "CE2", "CD2"]],
        "TYR": [["CG", "CD1", "CE1", "CZ", "CE2", "CD2"]],
        "TRP": [["CD2", "CE2", "CZ2", "CH2", "CZ3", "CE3"], ["CG", "CD1", "NE1", "CE2", "CD2"]],
        "HIS": [["CG", "ND1", "CE1", "NE2", "CD2"]],
    ]

    static func aminoAcidRings(_ residue: Residue, in chemistry: AtomChemistry) -> [AromaticRing] {
        guard let rings = aminoAcidRings[ResidueKind.standardNames[residue.name] ?? residue.name] else { return [] }
        return rings.compactMap { names in
            let atoms = names.compactMap { name in residue.atomRange.first { chemistry.kept[$0] && chemistry.model.atoms.names[$0] == name } }
            return atoms.count == names.count ? AromaticRing(atoms: atoms, positions: chemistry.positions) : nil
        }
    }

    /// Planar rings of 5 or 6 heavy atoms among `atoms` (a ligand's), each once.
    static func planarRings(_ atoms: [Int], in chemistry: AtomChemistry, deviation: Float) -> [AromaticRing] {
        let members = Set(atoms)
        var found = Set<[Int]>()
        var rings: [AromaticRing] = []
        // Every simple cycle of length 5–6 through each atom, walked from its smallest atom.
        func walk(_ path: [Int]) {
            guard let last = path.last, let start = path.first else { return }
            for next in chemistry.heavyNeighbours(last) where members.contains(next) && next >= start {
                if next == start, path.count >= 5 {
                    let key = path.sorted()
                    if found.insert(key).inserted, isPlanar(path, chemistry, deviation),
                       let ring = AromaticRing(atoms: path, positions: chemistry.positions),
                       !rings.contains(where: { distance($0.center, ring.center) < 1 }) { rings.append(ring) }
                } else if next != start, path.count < 6, !path.contains(next) {
                    walk(path + [next])
                }
            }
        }
        for a in atoms.sorted() where chemistry.element(a) != 1 { walk([a]) }
        // A 6-ring fused with a 5-ring is not also a 9-ring: only rings of 5 and 6 were walked. Two
        // rings' centres are never within 1 Å: a second is a copy of the first (alternate locations
        // written without their letters, as Open Babel writes them, give every combination of them).
        return rings
    }

    private static func isPlanar(_ ring: [Int], _ chemistry: AtomChemistry, _ deviation: Float) -> Bool {
        let p = chemistry.positions
        let n = ring.count
        let normals = (0..<n).map { i in
            cross(p[ring[(i + n - 1) % n]] - p[ring[i]], p[ring[(i + 1) % n]] - p[ring[i]])
        }
        for a in normals { for b in normals {
            let angle = degrees(between: a, b)
            if angle > deviation && angle < 180 - deviation { return false }
        } }
        return true
    }
}
