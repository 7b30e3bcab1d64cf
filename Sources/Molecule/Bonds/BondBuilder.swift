import Geometry

/// Finds the covalent bonds of a model:
/// 1. within residues, from the Chemical Component Dictionary table (orders and aromaticity);
/// 2. peptide (C–N) and phosphodiester (O3'–P) links between consecutive residues of a chain;
/// 3. the bonds the file states (struct_conn, CONECT, LINK, SSBOND), hydrogen bonds excluded;
/// 4. for residues the table does not know, every pair of atoms within covalent distance, found
///    with a spatial grid. Residues with force-field names (HID, CYX, …) use their standard
///    residue's bonds; hydrogens the dictionary does not name go to the nearest heavy atom.
/// Every bond is checked against the covalent range of its two elements, so a wrong or
/// symmetry-generated link in a file never yields a stretched bond. Atoms of different alternate
/// locations are never bonded to each other. A model whose file states its bonds by atom index
/// (an SDF/MOL or MOL2 record, a dictionary entry) has exactly those bonds.
///
/// The work is bounded whatever the input: a stated or dictionary bond matching more than 64 atom
/// pairs is not one bond and is skipped, and the distance search has the budget below.
public enum BondBuilder {
    /// Most bonds the distance search (step 4) leaves on one atom, counting those found before:
    /// twelve is more than any element forms (hypervalent and cluster atoms stay under it), so a
    /// made-up lattice where every atom has hundreds of neighbours in range gets no more.
    public static let maxSearchedBondsPerAtom = 12
    /// Densest neighbourhood the distance search looks into, in atoms per Å³. Real matter is far
    /// below it (diamond, the densest, 0.18; proteins with hydrogens about 0.1, twice that with two
    /// alternate locations); around an atom where the grid's 27 cells hold more, nothing is bonded.
    public static let maxSearchDensity: Float = 0.5
    /// Candidate pairs the distance search may look at, on average per atom searched; the search
    /// stops when they are spent (a real structure needs a few dozen).
    public static let searchVisitsPerAtom = 256

    public static func bonds(of model: Model, in structure: Structure, table: ComponentBondTable = .standard) -> BondList {
        // A record that states its bonds by atom index (SDF/MOL, MOL2, a dictionary entry) defines
        // its molecule: those bonds, and no others from names or distances.
        if !model.bonds.isEmpty { return statedBonds(of: model) }
        var list = BondList()
        list.a.reserveCapacity(model.atoms.count + model.atoms.count / 8)
        list.b.reserveCapacity(model.atoms.count + model.atoms.count / 8)
        list.orders.reserveCapacity(model.atoms.count + model.atoms.count / 8)
        var seen = Set<UInt64>()
        let atoms = model.atoms
        var unknownResidues: [Int] = []

        func compatible(_ i: Int, _ j: Int) -> Bool {
            let x = atoms.altLocs[i], y = atoms.altLocs[j]
            return x == 0 || y == 0 || x == y
        }
        func inRange(_ i: Int, _ j: Int) -> Bool {
            let d = distance(atoms.positions[i], atoms.positions[j])
            return CovalentRange.contains(distance: d, atoms.elements[i], atoms.elements[j])
        }
        func add(_ i: Int, _ j: Int, _ order: BondOrder, checkUnique: Bool) {
            guard i != j, compatible(i, j), inRange(i, j) else { return }
            if checkUnique {
                let key = UInt64(UInt32(min(i, j))) << 32 | UInt64(UInt32(max(i, j)))
                guard seen.insert(key).inserted else { return }
            }
            list.append(i, j, order)
        }

        // 1. Dictionary bonds inside each residue.
        var bonded = [Bool](repeating: false, count: atoms.count)
        for (r, res) in model.residues.enumerated() {
            let alias = table.bonds(of: res.name) == nil ? ResidueKind.standardNames[res.name] : nil
            guard let template = table.bonds(of: alias ?? res.name) else {
                if res.atomCount > 1 { unknownResidues.append(r) }
                continue
            }
            let range = res.atomRange
            let before = list.count
            if range.count <= 48 {
                for bond in template {
                    for i in range where atoms.names[i] == bond.atom1 {
                        for j in range where atoms.names[j] == bond.atom2 { add(i, j, bond.order, checkUnique: false) }
                    }
                }
            } else {
                // A residue of unusual size (a whole file under one residue id): look names up instead
                // of scanning, so the work stays linear.
                let byName = Dictionary(grouping: range, by: { atoms.names[$0] })
                for bond in template {
                    let from = byName[bond.atom1] ?? [], to = byName[bond.atom2] ?? []
                    guard from.count * to.count <= 64 else { continue }  // a name shared by many atoms: not one bond
                    for i in from { for j in to { add(i, j, bond.order, checkUnique: false) } }
                }
            }
            // Hydrogens the dictionary does not name (force-field names, Open Babel's plain "H" on
            // every polar atom): each to its nearest heavy atom.
            for k in before..<list.count { bonded[Int(list.a[k])] = true; bonded[Int(list.b[k])] = true }
            for h in range where atoms.elements[h].isHydrogen && !bonded[h] {
                var best = -1
                var bestDistance = Float.infinity
                for j in range where !atoms.elements[j].isHydrogen && compatible(h, j) {
                    let d = distance(atoms.positions[h], atoms.positions[j])
                    if d < bestDistance { bestDistance = d; best = j }
                }
                if best >= 0 { add(h, best, .single, checkUnique: false) }
            }
        }
        func link(_ p: Int, _ q: Int) {
            let prev = model.residues[p], next = model.residues[q]
            guard !prev.isWater, !next.isWater else { return }
            let pair: (String, String)
            if prev.kind == .nucleotide || next.kind == .nucleotide { pair = ("O3'", "P") } else { pair = ("C", "N") }
            let from = prev.atomRange.filter { atoms.names[$0] == pair.0 }
            let to = next.atomRange.filter { atoms.names[$0] == pair.1 }
            // Alternate locations give a few candidates; many more means these are not monomers.
            guard from.count * to.count <= 64 else { return }
            for i in from { for j in to { add(i, j, .single, checkUnique: false) } }
        }
        // 2. Links between consecutive residues; residues sharing a number (microheterogeneity) are
        // alternatives, so each links to every alternative of its neighbour.
        for chain in model.chains {
            var previousGroup: [Int] = []
            var group: [Int] = []
            var r = chain.residueRange.lowerBound
            while r < chain.residueRange.upperBound {
                let res = model.residues[r]
                group = [r]
                var k = r + 1
                while k < chain.residueRange.upperBound, model.residues[k].number == res.number,
                      model.residues[k].insertionCode == res.insertionCode { group.append(k); k += 1 }
                if previousGroup.count * group.count <= 64 { for p in previousGroup { for q in group { link(p, q) } } }
                previousGroup = group
                r = k
            }
        }
        // Pairs from steps 1-2 are unique by construction; later steps may repeat them.
        for k in 0..<list.count { seen.insert(UInt64(UInt32(list.a[k])) << 32 | UInt64(UInt32(list.b[k]))) }

        // 3. Bonds the file states.
        if !structure.explicitBonds.isEmpty {
            var residueIndex: [ResidueRef: [Int]] = [:]
            for chain in model.chains {
                for r in chain.residueRange {
                    let res = model.residues[r]
                    residueIndex[ResidueRef(chainID: chain.id, number: res.number, insertionCode: res.insertionCode), default: []].append(r)
                }
            }
            // Atom names of each residue a stated bond touches, indexed on first use so that many
            // bonds into one large residue still cost linear time.
            var namesOfResidue: [Int: [String: [Int]]] = [:]
            func atomsMatching(_ ref: AtomRef) -> [Int] {
                guard let rs = residueIndex[ref.residue] else { return [] }
                var out: [Int] = []
                for r in rs where ref.residueName.isEmpty || model.residues[r].name == ref.residueName {
                    if namesOfResidue[r] == nil { namesOfResidue[r] = Dictionary(grouping: model.residues[r].atomRange, by: { atoms.names[$0] }) }
                    for i in namesOfResidue[r]?[ref.atomName] ?? [] where ref.altLoc == 0 || atoms.altLocs[i] == ref.altLoc {
                        out.append(i)
                    }
                }
                return out
            }
            for bond in structure.explicitBonds where bond.kind != .hydrogen {
                let from = atomsMatching(bond.a), to = atomsMatching(bond.b)
                guard from.count * to.count <= 64 else { continue }  // a name shared by many atoms: not one bond
                for i in from { for j in to { add(i, j, bond.order, checkUnique: true) } }
            }
        }

        // 4. Distance fallback inside residues the table does not know.
        if !unknownResidues.isEmpty {
            var indices: [Int] = []
            for r in unknownResidues { indices.append(contentsOf: model.residues[r].atomRange) }
            let residueOf = model.residueIndexOfAtoms()
            let points = indices.map { atoms.positions[$0] }
            let maxRadius = indices.reduce(Float(0)) { max($0, atoms.elements[$1].covalentRadius) }
            let grid = SpatialGrid(points: points, cellSize: 2 * maxRadius + CovalentRange.tolerance)
            let cap = UInt8(maxSearchedBondsPerAtom)
            var bondsOf = [UInt8](repeating: 0, count: atoms.count)
            for k in 0..<list.count {
                let a = Int(list.a[k]), b = Int(list.b[k])
                bondsOf[a] = bondsOf[a] == .max ? .max : bondsOf[a] + 1
                bondsOf[b] = bondsOf[b] == .max ? .max : bondsOf[b] + 1
            }
            let limit = grid.candidateLimit(density: maxSearchDensity)
            var visitsLeft = searchVisitsPerAtom * indices.count + 100_000
            for (k, i) in indices.enumerated() where bondsOf[i] < cap {
                guard visitsLeft > 0 else { break }
                visitsLeft -= grid.forEachCandidate(near: points[k], limit: limit) { m in
                    let j = indices[m]
                    guard j > i, residueOf[i] == residueOf[j], bondsOf[j] < cap else { return true }
                    // Hydrogens bond to one atom only: skip H–H pairs.
                    if atoms.elements[i].isHydrogen && atoms.elements[j].isHydrogen { return true }
                    let before = list.count
                    add(i, j, .single, checkUnique: true)
                    if list.count > before { bondsOf[i] += 1; bondsOf[j] += 1 }
                    return bondsOf[i] < cap
                }
            }
        }
        return list
    }

    /// The bonds a record states by atom index, kept whatever the geometry (dictionary entries may
    /// have no coordinates); each pair once.
    static func statedBonds(of model: Model) -> BondList {
        var list = BondList()
        var seen = Set<UInt64>()
        let n = model.atoms.count
        for bond in model.bonds {
            let i = Int(bond.a), j = Int(bond.b)
            guard i >= 0, j >= 0, i < n, j < n, i != j else { continue }
            let key = UInt64(UInt32(min(i, j))) << 32 | UInt64(UInt32(max(i, j)))
            if seen.insert(key).inserted { list.append(i, j, bond.order) }
        }
        return list
    }
}
