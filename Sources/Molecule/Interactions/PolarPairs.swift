import Geometry

/// Salt bridges and hydrogen bonds between two sides — a ligand and the residues around it
/// (`SiteSearch`), or two protein chains (`ChainInterfaces`) — by the criteria: one search for both.
/// `from` is always the first side's, `to` the second's; `ligandDonates` says whether the first
/// side gives the hydrogen.
enum PolarPairs {
    /// Charged groups of opposite sign whose centres lie within the salt-bridge distance.
    static func saltBridges(_ first: [ChargedGroup], _ second: [ChargedGroup], criteria: InteractionCriteria) -> [Interaction] {
        var out: [Interaction] = []
        for a in first { for b in second where a.positive != b.positive {
            let d = distance(a.center, b.center)
            if d > criteria.minimumDistance && d < criteria.saltBridgeMax { out.append(Interaction(kind: .saltBridge, from: a.atoms, to: b.atoms, distance: d)) }
        } }
        return out
    }

    /// Donor–acceptor pairs among `pairs` (first side's atom, second side's) within reach whose best
    /// hydrogen makes the angle, one per donor (the largest angle), none between two groups already
    /// paired as a salt bridge (`bridges`).
    static func hydrogenBonds(_ pairs: some Sequence<(Int, Int)>, excluding bridges: [Interaction], chemistry: AtomChemistry,
                              criteria: InteractionCriteria) -> [Interaction] {
        let paired = Set(bridges.flatMap { b in b.from.flatMap { f in b.to.map { Set([f, $0]) } } })
        let p = chemistry.positions
        var best: [Int: Interaction] = [:]
        func consider(donor: Int, acceptor: Int, firstDonates: Bool) {
            let d = distance(p[donor], p[acceptor])
            guard d > criteria.minimumDistance, d < criteria.hydrogenBondMax, !paired.contains([donor, acceptor]),
                  let (angle, _) = chemistry.bestHydrogen(donor, toward: p[acceptor]), angle > criteria.hydrogenBondAngleMin else { return }
            if let kept = best[donor], (kept.angle ?? 0) >= angle { return }
            // Two atoms that each may give (two hydroxyls) make one H-bond, not one each way: the
            // better angle's.
            if let reverse = best[acceptor], Set(reverse.from + reverse.to) == [donor, acceptor] {
                guard (reverse.angle ?? 0) < angle else { return }
                best[acceptor] = nil
            }
            best[donor] = Interaction(kind: .hydrogenBond, from: [firstDonates ? donor : acceptor], to: [firstDonates ? acceptor : donor],
                                      distance: d, angle: angle, ligandDonates: firstDonates)
        }
        for (a, b) in pairs {
            if chemistry.donors[a] != nil, chemistry.isAcceptor[b] { consider(donor: a, acceptor: b, firstDonates: true) }
            if chemistry.donors[b] != nil, chemistry.isAcceptor[a] { consider(donor: b, acceptor: a, firstDonates: false) }
        }
        return Array(best.values)
    }
}
