import Geometry

/// Where two protein chains touch: for each pair of chains of a model, the residues of each with a
/// heavy atom within the site radius (4.5 Å) of the other's, and the hydrogen bonds and salt bridges
/// between them by the same search as a ligand's (`PolarPairs`: one H-bond per donor, the best
/// angle; none between groups paired as a salt bridge). Pure computation, no I/O.
public struct ChainInterface: Sendable, Equatable {
    /// The two chains (indices into the model's chains, the first lower).
    public var chains: (Int, Int)
    /// Each side's interface residues (model residue indices, ascending).
    public var residues: ([Int], [Int])
    /// H-bonds and salt bridges: `from` on the first chain, `to` on the second; `ligandDonates` says
    /// whether the first chain gives the hydrogen.
    public var interactions: [Interaction]

    public static func == (a: Self, b: Self) -> Bool {
        a.chains == b.chains && a.residues == b.residues && a.interactions == b.interactions
    }
}

public enum ChainInterfaces {
    /// Every pair of protein chains that touch, in chain order.
    public static func find(in structure: Structure, criteria: InteractionCriteria = .standard, modelIndex: Int = 0) -> [ChainInterface] {
        guard structure.models.indices.contains(modelIndex), structure.models[modelIndex].chains.count > 1 else { return [] }
        let model = structure.models[modelIndex]
        let chemistry = AtomChemistry(model: model, bonds: BondBuilder.bonds(of: model, in: structure))
        let chainOf = model.chainIndexOfResidues()
        let p = model.atoms.positions
        let atoms = (0..<model.atoms.count).filter {
            chemistry.kept[$0] && chemistry.element($0) != 1 && model.residues[Int(chemistry.residueOf[$0])].kind == .aminoAcid
        }
        guard !atoms.isEmpty else { return [] }
        let grid = SpatialGrid(points: atoms.map { p[$0] }, cellSize: criteria.searchRadius)
        let limit = grid.candidateLimit(density: BondBuilder.maxSearchDensity)
        struct Pair: Hashable { var first: Int; var second: Int }
        var residues: [Pair: (Set<Int>, Set<Int>)] = [:]
        var polar: [Pair: [(Int, Int)]] = [:]  // atom pairs within H-bond reach, first chain's atom first
        let contact = criteria.siteRadius * criteria.siteRadius, reach = criteria.hydrogenBondMax * criteria.hydrogenBondMax
        for (i, a) in atoms.enumerated() {
            let ra = Int(chemistry.residueOf[a]), ca = Int(chainOf[ra])
            grid.forEachCandidate(near: p[a], limit: limit) { j in
                let b = atoms[j], rb = Int(chemistry.residueOf[b]), cb = Int(chainOf[rb])
                guard j > i, ca != cb else { return true }
                let d2 = lengthSquared(p[a] - p[b])
                let (x, y, rx, ry) = ca < cb ? (a, b, ra, rb) : (b, a, rb, ra)
                let pair = Pair(first: min(ca, cb), second: max(ca, cb))
                if d2 <= contact {
                    residues[pair, default: ([], [])].0.insert(rx)
                    residues[pair, default: ([], [])].1.insert(ry)
                }
                if d2 < reach { polar[pair, default: []].append((x, y)) }
                return true
            }
        }
        return residues.keys.sorted { ($0.first, $0.second) < ($1.first, $1.second) }.map { pair in
            let (first, second) = residues[pair] ?? ([], [])
            let charged = { (residues: Set<Int>) in residues.sorted().compactMap { ChargedGroups.aminoAcid(model.residues[$0], in: chemistry) } }
            let bridges = PolarPairs.saltBridges(charged(first), charged(second), criteria: criteria)
            let hbonds = PolarPairs.hydrogenBonds(polar[pair] ?? [], excluding: bridges, chemistry: chemistry, criteria: criteria)
            return ChainInterface(chains: (pair.first, pair.second), residues: (first.sorted(), second.sorted()),
                                  interactions: bridges + hbonds.sorted { ($0.from.first ?? 0, $0.to.first ?? 0) < ($1.from.first ?? 0, $1.to.first ?? 0) })
        }
    }
}
