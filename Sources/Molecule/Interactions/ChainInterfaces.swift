import Geometry

/// Where two protein chains touch: for each pair of chains of a model, the residues of each with a
/// heavy atom within the site radius (4.5 Å) of the other's, and the hydrogen bonds and salt bridges
/// between them by the same criteria as a ligand's (`InteractionCriteria`; one H-bond per donor, the
/// best angle; none between groups paired as a salt bridge). Pure computation, no I/O.
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
            let bridges = saltBridges(first.sorted(), second.sorted(), chemistry, criteria)
            let hbonds = hydrogenBonds(polar[pair] ?? [], excluding: bridges, chemistry, criteria)
            return ChainInterface(chains: (pair.first, pair.second), residues: (first.sorted(), second.sorted()),
                                  interactions: bridges + hbonds.sorted { ($0.from.first ?? 0, $0.to.first ?? 0) < ($1.from.first ?? 0, $1.to.first ?? 0) })
        }
    }

    static func saltBridges(_ first: [Int], _ second: [Int], _ chemistry: AtomChemistry, _ criteria: InteractionCriteria) -> [Interaction] {
        let a = first.compactMap { ChargedGroups.aminoAcid(chemistry.model.residues[$0], in: chemistry) }
        let b = second.compactMap { ChargedGroups.aminoAcid(chemistry.model.residues[$0], in: chemistry) }
        var out: [Interaction] = []
        for x in a { for y in b where x.positive != y.positive {
            let d = distance(x.center, y.center)
            if d > criteria.minimumDistance && d < criteria.saltBridgeMax { out.append(Interaction(kind: .saltBridge, from: x.atoms, to: y.atoms, distance: d)) }
        } }
        return out
    }

    /// One H-bond per donor (the best angle) among atom pairs within reach, first chain's atom first.
    static func hydrogenBonds(_ pairs: [(Int, Int)], excluding bridges: [Interaction], _ chemistry: AtomChemistry,
                              _ criteria: InteractionCriteria) -> [Interaction] {
        let paired = Set(bridges.flatMap { b in b.from.flatMap { f in b.to.map { Set([f, $0]) } } })
        let p = chemistry.positions
        var best: [Int: Interaction] = [:]
        func consider(donor: Int, acceptor: Int, firstDonates: Bool) {
            let d = distance(p[donor], p[acceptor])
            guard d > criteria.minimumDistance, d < criteria.hydrogenBondMax, !paired.contains([donor, acceptor]),
                  let (angle, _) = chemistry.bestHydrogen(donor, toward: p[acceptor]), angle > criteria.hydrogenBondAngleMin else { return }
            if let kept = best[donor], (kept.angle ?? 0) >= angle { return }
            best[donor] = Interaction(kind: .hydrogenBond, from: [firstDonates ? donor : acceptor], to: [firstDonates ? acceptor : donor],
                                      distance: d, angle: angle, ligandDonates: firstDonates)
        }
        for (x, y) in pairs {
            if chemistry.donors[x] != nil, chemistry.isAcceptor[y] { consider(donor: x, acceptor: y, firstDonates: true) }
            if chemistry.donors[y] != nil, chemistry.isAcceptor[x] { consider(donor: y, acceptor: x, firstDonates: false) }
        }
        return Array(best.values)
    }
}
