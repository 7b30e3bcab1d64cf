import Foundation
import Geometry

/// Finds each ligand's binding site and non-covalent interactions in a structure's model (the first
/// unless asked: an NMR ensemble's others for its binding-site view in motion), by
/// PLIP's criteria (`InteractionCriteria`): pure computation, no I/O. Partners are the amino acids
/// of the protein chains (and, for water bridges and metal coordination, waters).
public enum InteractionFinder {
    /// Every ligand's site, or only those whose residue name or `chain:number` is `ligand`, in model
    /// `modelIndex` (from 0; atom and residue indices are that model's).
    public static func sites(in structure: Structure, ligand: String? = nil, criteria: InteractionCriteria = .standard,
                             modelIndex: Int = 0) -> [LigandSite] {
        guard structure.models.indices.contains(modelIndex), !structure.models[modelIndex].atoms.isEmpty else { return [] }
        let model = structure.models[modelIndex]
        let chemistry = AtomChemistry(model: model, bonds: BondBuilder.bonds(of: model, in: structure))
        let chainOf = model.chainIndexOfResidues()
        let grid = SpatialGrid(points: model.atoms.positions, cellSize: criteria.searchRadius)
        let limit = grid.candidateLimit(density: BondBuilder.maxSearchDensity)
        return LigandFinder.ligands(in: model, chemistry: chemistry).compactMap { residues in
            if let ligand, !names(residues, ligand, model, chainOf) { return nil }
            var site = SiteSearch(residues: residues, chemistry: chemistry, criteria: criteria, grid: grid, limit: limit)
            return site.run()
        }
    }

    /// Whether a ligand answers to `query`: a residue name ("AP5") or "chain:number" ("A:215").
    static func names(_ residues: [Int], _ query: String, _ model: Model, _ chainOf: [Int32]) -> Bool {
        residues.contains { r in
            let residue = model.residues[r]
            let chain = model.chains[Int(chainOf[r])].id
            return residue.name.caseInsensitiveCompare(query) == .orderedSame || "\(chain):\(residue.label)" == query
        }
    }
}

/// One ligand's search: its atoms, what stands near, and each kind of interaction in turn.
struct SiteSearch {
    let residues: [Int]
    let chemistry: AtomChemistry
    let criteria: InteractionCriteria
    let ligandAtoms: [Int]
    /// Partner (amino-acid) atoms within the search radius of a ligand atom; waters' oxygens.
    var partnerAtoms: [Int] = []
    var waters: [Int] = []
    var partnerResidues: [Int] = []
    var found: [Interaction] = []

    init(residues: [Int], chemistry: AtomChemistry, criteria: InteractionCriteria, grid: SpatialGrid, limit: Int) {
        self.residues = residues
        self.chemistry = chemistry
        self.criteria = criteria
        let model = chemistry.model
        ligandAtoms = residues.flatMap { model.residues[$0].atomRange }.filter { chemistry.kept[$0] && chemistry.element($0) != 1 }
        let own = Set(residues)
        var near = Set<Int>()
        let p = model.atoms.positions
        let reach = criteria.searchRadius * criteria.searchRadius
        for a in ligandAtoms {
            grid.forEachCandidate(near: p[a], limit: limit) { b in
                if chemistry.kept[b], chemistry.element(b) != 1, lengthSquared(p[b] - p[a]) <= reach { near.insert(b) }
                return true
            }
        }
        for b in near.sorted() {
            let r = Int(chemistry.residueOf[b])
            guard !own.contains(r) else { continue }
            switch model.residues[r].kind {
            case .aminoAcid: partnerAtoms.append(b)
            case .water where chemistry.element(b) == 8: waters.append(b)
            default: break
            }
        }
        partnerResidues = Array(Set(partnerAtoms.map { Int(chemistry.residueOf[$0]) })).sorted()
    }

    private var p: [SIMD3<Float>] { chemistry.positions }

    mutating func run() -> LigandSite {
        let model = chemistry.model
        let ligandRings = RingFinder.planarRings(ligandAtoms, in: chemistry, deviation: criteria.ringPlanarityDeviation)
        let partnerRings = partnerResidues.flatMap { RingFinder.aminoAcidRings(model.residues[$0], in: chemistry) }
        let ligandCharges = ChargedGroups.ligand(ligandAtoms, in: chemistry)
        let partnerCharges = partnerResidues.compactMap { ChargedGroups.aminoAcid(model.residues[$0], in: chemistry) }

        let bridges = PolarPairs.saltBridges(ligandCharges, partnerCharges, criteria: criteria)
        let stacks = stacking(ligandRings, partnerRings)
        let (ligand, partners) = (ligandAtoms, partnerAtoms)
        let hbonds = PolarPairs.hydrogenBonds(ligand.lazy.flatMap { l in partners.lazy.map { (l, $0) } }, excluding: bridges,
                                              chemistry: chemistry, criteria: criteria)
        found = bridges + hbonds + stacks
        found += cationPi(ligandRings, partnerCharges, ligandRingSide: true, stacks: stacks)
        found += cationPi(partnerRings, ligandCharges, ligandRingSide: false, stacks: stacks)
        found += hydrophobic(excludingStacked: stacks)
        found += halogenBonds()
        found += waterBridges(excludingDonorsOf: hbonds)
        found += metalComplexes(ligandRings: ligandRings)
        found.sort { ($0.kind, $0.from.first ?? 0, $0.to.first ?? 0) < ($1.kind, $1.from.first ?? 0, $1.to.first ?? 0) }

        let own = Set(residues)
        let siteReach = criteria.siteRadius * criteria.siteRadius
        let site = partnerResidues.filter { r in
            !own.contains(r) && model.residues[r].atomRange.contains { b in
                chemistry.kept[b] && ligandAtoms.contains { lengthSquared(p[$0] - p[b]) <= siteReach }
            }
        }
        let additive = residues.allSatisfy { LigandFinder.additives.contains(model.residues[$0].name) }
        return LigandSite(residues: residues, atoms: ligandAtoms, isAdditive: additive, siteResidues: site, interactions: found)
    }

    private func within(_ d: Float, _ max: Float) -> Bool { d > criteria.minimumDistance && d < max }

    // MARK: Rings

    /// The smaller angle between two rings' planes, and how far one ring's centre stands off the
    /// other's axis (the smaller of the two projections).
    private func ringGeometry(_ a: AromaticRing, _ b: AromaticRing) -> (angle: Float, offset: Float) {
        let between = degrees(between: a.normal, b.normal)
        let angle = min(between, 180 - between)
        return (angle, min(offAxis(b.center, of: a), offAxis(a.center, of: b)))
    }

    private func offAxis(_ point: SIMD3<Float>, of ring: AromaticRing) -> Float {
        let v = point - ring.center
        return length(v - dot(v, ring.normal) * ring.normal)
    }

    private func stacking(_ ligand: [AromaticRing], _ partner: [AromaticRing]) -> [Interaction] {
        var out: [Interaction] = []
        for l in ligand { for q in partner {
            let d = distance(l.center, q.center)
            guard within(d, criteria.stackingMax) else { continue }
            let (angle, offset) = ringGeometry(l, q)
            guard offset < criteria.stackingOffsetMax else { continue }
            let deviation = criteria.stackingAngleDeviation
            let form = angle < deviation ? "parallel" : (abs(angle - 90) < deviation ? "T-shaped" : nil)
            if let form { out.append(Interaction(kind: .piStacking, from: l.atoms, to: q.atoms, distance: d, angle: angle, form: form)) }
        } }
        return out
    }

    /// A positive charge over a ring; not a histidine's when that histidine's ring stacks on the
    /// same ring (then the stacking is what holds).
    private func cationPi(_ rings: [AromaticRing], _ charges: [ChargedGroup], ligandRingSide: Bool, stacks: [Interaction]) -> [Interaction] {
        var out: [Interaction] = []
        for ring in rings { for charge in charges where charge.positive {
            let d = distance(ring.center, charge.center)
            guard within(d, criteria.cationPiMax), offAxis(charge.center, of: ring) < criteria.stackingOffsetMax else { continue }
            if charge.isTertiaryAmine, !amineFacesRing(charge.atoms[0], ring) { continue }
            if ligandRingSide, let first = charge.atoms.first, chemistry.model.residues[Int(chemistry.residueOf[first])].name == "HIS",
               stacks.contains(where: { $0.from == ring.atoms && Set($0.to).isSuperset(of: charge.atoms) }) { continue }
            out.append(ligandRingSide
                ? Interaction(kind: .cationPi, from: ring.atoms, to: charge.atoms, distance: d)
                : Interaction(kind: .cationPi, from: charge.atoms, to: ring.atoms, distance: d))
        } }
        return out
    }

    /// A tertiary amine's three bonds make a plane; its lone pair (or hydrogen) points at the ring
    /// when that plane is within 30° of the ring's.
    private func amineFacesRing(_ n: Int, _ ring: AromaticRing) -> Bool {
        let around = chemistry.heavyNeighbours(n)
        guard around.count >= 3 else { return true }
        let normal = cross(p[around[1]] - p[around[0]], p[around[0]] - p[around[2]])
        let between = degrees(between: normal, ring.normal)
        return min(between, 180 - between) <= 30
    }

    // MARK: Hydrophobic contacts

    /// Carbon–carbon contacts, then PLIP's thinning: none between two stacked rings; per ligand
    /// atom and residue the nearest; per partner atom, the nearest of each bonded patch of ligand atoms.
    private func hydrophobic(excludingStacked stacks: [Interaction]) -> [Interaction] {
        let stacked = Set(stacks.flatMap { s in s.from.flatMap { f in s.to.map { [f, $0] } } })
        var perResidue: [[Int]: Interaction] = [:]
        for l in ligandAtoms where chemistry.isHydrophobicCarbon(l) {
            for q in partnerAtoms where chemistry.isHydrophobicCarbon(q) && !stacked.contains([l, q]) {
                let d = distance(p[l], p[q])
                guard within(d, criteria.hydrophobicMax) else { continue }
                let key = [l, Int(chemistry.residueOf[q])]
                if let kept = perResidue[key], kept.distance <= d { continue }
                perResidue[key] = Interaction(kind: .hydrophobic, from: [l], to: [q], distance: d)
            }
        }
        var byPartner: [Int: [Interaction]] = [:]
        for contact in perResidue.values { byPartner[contact.to[0], default: []].append(contact) }
        var out: [Interaction] = []
        for contacts in byPartner.values {
            var left = contacts
            while let seed = left.first {
                // The patch: ligand atoms in these contacts bonded to each other, walked from the seed.
                var patch: Set<Int> = [seed.from[0]], frontier = [seed.from[0]]
                let atoms = Set(left.map { $0.from[0] })
                while let a = frontier.popLast() {
                    for b in chemistry.heavyNeighbours(a) where atoms.contains(b) && patch.insert(b).inserted { frontier.append(b) }
                }
                let members = left.filter { patch.contains($0.from[0]) }
                if let nearest = members.min(by: { $0.distance < $1.distance }) { out.append(nearest) }
                left.removeAll { patch.contains($0.from[0]) }
            }
        }
        return out
    }

    // MARK: Halogen bonds, water bridges, metals

    private func halogenBonds() -> [Interaction] {
        var out: [Interaction] = []
        for x in ligandAtoms where [9, 17, 35, 53].contains(chemistry.element(x)) {
            let carbons = chemistry.heavyNeighbours(x).filter { chemistry.element($0) == 6 }
            guard carbons.count == 1 else { continue }
            for o in partnerAtoms where [7, 8, 16].contains(chemistry.element(o)) {
                let bonded = chemistry.heavyNeighbours(o).filter { [6, 7, 15, 16].contains(chemistry.element($0)) }
                guard bonded.count == 1 else { continue }
                let d = distance(p[x], p[o])
                guard within(d, criteria.halogenMax) else { continue }
                let acceptorAngle = degrees(between: p[bonded[0]] - p[o], p[x] - p[o])
                let donorAngle = degrees(between: p[o] - p[x], p[carbons[0]] - p[x])
                let dev = criteria.halogenAngleDeviation
                guard abs(acceptorAngle - criteria.halogenAcceptorAngle) < dev, abs(donorAngle - criteria.halogenDonorAngle) < dev else { continue }
                out.append(Interaction(kind: .halogenBond, from: [x], to: [o], distance: d, angle: donorAngle))
            }
        }
        return out
    }

    /// An acceptor on one side and a donor on the other, each within reach of one water, the donor's
    /// hydrogen pointing at the water and the angle at the water in range; a donor that already makes
    /// an H-bond makes no bridge; per water and acceptor the bridge nearest 110° at the water, and
    /// two bridges per water at most.
    private func waterBridges(excludingDonorsOf hbonds: [Interaction]) -> [Interaction] {
        let hbondDonors = Set(hbonds.map { $0.ligandDonates == true ? $0.from[0] : $0.to[0] })
        var perAcceptor: [[Int]: (Float, Interaction)] = [:]
        let reach = { (a: Int, w: Int) -> Float? in
            let d = distance(self.p[a], self.p[w])
            return d >= self.criteria.waterBridgeMin && d <= self.criteria.waterBridgeMax ? d : nil
        }
        for w in waters {
            for (acceptors, donors, ligandDonates) in [(ligandAtoms, partnerAtoms, false), (partnerAtoms, ligandAtoms, true)] {
                for a in acceptors where chemistry.isAcceptor[a] {
                    guard let da = reach(a, w) else { continue }
                    for d in donors where chemistry.donors[d] != nil && !hbondDonors.contains(d) {
                        guard reach(d, w) != nil, let (theta, h) = chemistry.bestHydrogen(d, toward: p[w]),
                              theta > criteria.waterThetaMin else { continue }
                        let omega = degrees(between: p[a] - p[w], h - p[w])
                        guard omega > criteria.waterOmegaMin, omega < criteria.waterOmegaMax else { continue }
                        let bridge = ligandDonates
                            ? Interaction(kind: .waterBridge, from: [d], to: [a], water: w, distance: da, angle: omega, ligandDonates: true)
                            : Interaction(kind: .waterBridge, from: [a], to: [d], water: w, distance: da, angle: omega, ligandDonates: false)
                        let key = [w, a], off = abs(omega - 110)
                        if let kept = perAcceptor[key], kept.0 <= off { continue }
                        perAcceptor[key] = (off, bridge)
                    }
                }
            }
        }
        var perWater: [Int: [(Float, Interaction)]] = [:]
        for (key, value) in perAcceptor { perWater[key[0], default: []].append(value) }
        return perWater.values.flatMap { $0.sorted { $0.0 < $1.0 }.prefix(2).map(\.1) }
    }

    /// A ligand's metal and the atoms that coordinate it (as its geometry allows: `MetalGeometry`),
    /// unless all are waters: the ligand's own (carboxylate, phosphate and
    /// phenolate oxygens, alcohols, nitrogens between two carbons, thiolates), waters, and the
    /// protein's (Asp, Glu, Ser, Thr, Tyr side-chain oxygens, His nitrogens, Cys sulfur, any
    /// main-chain oxygen).
    private func metalComplexes(ligandRings: [AromaticRing]) -> [Interaction] {
        let model = chemistry.model
        let metals = ligandAtoms.filter { LigandFinder.metals.contains(chemistry.element($0)) }
        guard !metals.isEmpty else { return [] }
        let ringAtoms = Set(ligandRings.flatMap(\.atoms))
        var targets = waters
        for a in ligandAtoms where ligandBindsMetal(a, ringAtoms) { targets.append(a) }
        for a in partnerAtoms where model.residues[Int(chemistry.residueOf[a])].kind == .aminoAcid {
            let residue = model.residues[Int(chemistry.residueOf[a])]
            let name = model.atoms.names[a]
            let sideChain: Bool
            switch ResidueKind.standardNames[residue.name] ?? residue.name {
            case "ASP", "GLU", "SER", "THR", "TYR": sideChain = chemistry.element(a) == 8 && name != "O" && name != "OXT"
            case "HIS": sideChain = chemistry.element(a) == 7 && name != "N"
            case "CYS": sideChain = chemistry.element(a) == 16
            default: sideChain = false
            }
            if sideChain || name == "O" || name == "OXT" { targets.append(a) }
        }
        let waterSet = Set(waters)
        var out: [Interaction] = []
        for m in metals {
            let near = targets.filter { $0 != m && distance(p[m], p[$0]) < criteria.metalMax }
            // Waters alone make no complex; of the rest, those the coordination geometry has a place for.
            guard near.contains(where: { !waterSet.contains($0) }) else { continue }
            for k in MetalGeometry.coordinating(metal: p[m], targets: near.map { p[$0] }) {
                out.append(Interaction(kind: .metalComplex, from: [m], to: [near[k]], distance: distance(p[m], p[near[k]])))
            }
        }
        return out
    }

    private func ligandBindsMetal(_ a: Int, _ ringAtoms: Set<Int>) -> Bool {
        let around = chemistry.heavyNeighbours(a)
        switch chemistry.element(a) {
        case 8:
            guard around.count == 1 else { return false }
            let x = around[0]
            let xAround = chemistry.heavyNeighbours(x).map(chemistry.element)
            switch chemistry.element(x) {
            case 15: return xAround.filter { $0 == 8 }.count >= 2  // phosphoryl
            case 6: return true  // carboxylate, phenolate, alcohol
            default: return false
            }
        case 7: return around.filter { chemistry.element($0) == 6 }.count == 2
        case 16: return around.contains { ringAtoms.contains($0) } && !ringAtoms.contains(a) || (!around.isEmpty && around.allSatisfy { chemistry.element($0) == 26 })
        default: return false
        }
    }
}
