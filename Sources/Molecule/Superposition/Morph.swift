import Geometry

/// Two conformations of one protein as frames of a motion (adenylate kinase closing: 4AKE → 1AKE):
///
/// 1. the other structure superposed on this one (`Superposition`: its chain that aligns best with
///    one of ours, or the chains named), so that frame 1 stands where this structure stands;
/// 2. atoms paired residue by residue through the alignment, by name (CHARMM's Ile `CD` and
///    C-terminal `OT1`/`OT2` read as `CD1`, `O`, `OXT`); residues whose names differ pair their
///    backbone alone; what has no partner (ligands, waters, hydrogens only one file has) is left out;
/// 3. frames linear in Cartesian space between the two, then each frame's bonds and bond angles
///    (the distances of atoms one and two bonds apart) brought back, by a few rounds of moving each
///    pair to its length interpolated between the two ends: a domain that turns shortens the
///    straight line between its ends, and so the bonds across it, by up to 1 − cos(θ/2);
/// 4. the builder's clash rule (`BackboneClash`) counted on every frame.
///
/// Frame 1 is this structure's chain as it is, the last the other's conformation superposed.
public enum Morph {
    public struct Options: Sendable, Equatable {
        /// Frames, ends included (2 to `mostFrames`).
        public var frames: Int
        /// This structure's chain and the other's (author ids); the pair that aligns best when nil.
        public var chain: String?
        public var otherChain: String?
        /// Rounds of restoring bond lengths and angles on each frame.
        public var rounds: Int

        public init(frames: Int = 12, chain: String? = nil, otherChain: String? = nil, rounds: Int = 200) {
            self.frames = frames; self.chain = chain; self.otherChain = otherChain; self.rounds = rounds
        }
    }

    /// The most frames a morph makes (a scene of every model holds up to 50).
    public static let mostFrames = 50

    public struct Result: Sendable {
        /// One model per frame, one chain: this structure's atoms that have a partner, in its order.
        public var structure: Structure
        /// The other structure's chain moved onto this one's.
        public var superposition: SuperpositionResult
        /// For each atom of a frame, its index in this structure's first model (identify.json's).
        public var sourceAtoms: [Int]
        /// Atoms of this structure's chain, and of the other's, left without a partner.
        public var unpaired: Int
        public var otherUnpaired: Int
        /// The largest change of a bond's length from its length at the ends (a fraction), in the
        /// plain linear frames and in the frames made.
        public var worstLinearBondChange: Double
        public var worstBondChange: Double
        /// Backbone clashes (`BackboneClash`) in each frame.
        public var clashes: [Int]

        public var frames: Int { structure.models.count }
        public var atoms: Int { sourceAtoms.count }
    }

    /// The morph from `structure` (frame 1) to `other` (the last frame).
    public static func morph(from structure: Structure, to other: Structure, options: Options = Options()) throws(MorphError) -> Result {
        guard (2...mostFrames).contains(options.frames) else { throw .frames(options.frames, most: mostFrames) }
        guard let model = structure.firstModel, let otherModel = other.firstModel else { throw .superposition(.noProteinChain(side: "A")) }
        // The other moves onto this one: in Superposition's terms it is A, this one B.
        let fit: SuperpositionResult
        do {
            fit = try Superposition.superpose(other, onto: structure, options: .init(chainA: options.otherChain, chainB: options.chain))
        } catch { throw .superposition(error) }
        func proteinChain(_ m: Model, _ id: String) -> Int? {
            m.chains.indices.first { m.chains[$0].id == id && !CalphaTrace(model: m, chainIndex: $0).residues.isEmpty }
        }
        guard let chainIndex = proteinChain(model, fit.chainB), let otherChainIndex = proteinChain(otherModel, fit.chainA) else {
            throw .superposition(.noProteinChain(side: "A"))
        }
        var pairs = atomPairs(model, chainIndex, otherModel, otherChainIndex, residuePairs: fit.pairs)
        guard pairs.count >= Superposition.minimumPairs else { throw .tooFewAtoms(pairs.count) }
        let place = { (b: Int) in fit.transform.apply(SIMD3<Double>(otherModel.atoms.positions[b])) }
        swapEquivalentAtoms(&pairs, model, place)
        let start = pairs.map { SIMD3<Double>(model.atoms.positions[$0.0]) }
        let end = pairs.map { place($0.1) }
        var first = frameModel(model, chainIndex: chainIndex, atoms: pairs.map(\.0))
        var alone = Structure()
        alone.models = [first]
        let restraints = Restraints(bonds: BondBuilder.bonds(of: first, in: alone), backbone: first, start: start, end: end)
        var models: [Model] = []
        var worstLinear = 0.0, worst = 0.0
        for k in 0..<options.frames {
            let t = Double(k) / Double(options.frames - 1)
            var p = zip(start, end).map { $0 + ($1 - $0) * t }
            worstLinear = max(worstLinear, restraints.worstBondChange(p, t: t))
            if k > 0 && k < options.frames - 1 { restraints.restore(&p, t: t, rounds: options.rounds) }
            worst = max(worst, restraints.worstBondChange(p, t: t))
            first.number = k + 1
            first.atoms.positions = p.map { SIMD3<Float>(Float($0.x), Float($0.y), Float($0.z)) }
            models.append(first)
        }
        var out = Structure()
        out.metadata = structure.metadata
        out.metadata.title = "Morph of \(structure.metadata.id.isEmpty ? "this structure" : structure.metadata.id) chain \(fit.chainB) into "
            + "\(other.metadata.id.isEmpty ? "the other" : other.metadata.id) chain \(fit.chainA)"
        out.entities = structure.entities
        out.secondaryStructureRecords = structure.secondaryStructureRecords
        out.sourceFormat = structure.sourceFormat
        out.models = models
        let chainAtoms = model.chains[chainIndex].residueRange.reduce(0) { $0 + model.residues[$1].atomCount }
        let otherChainAtoms = otherModel.chains[otherChainIndex].residueRange.reduce(0) { $0 + otherModel.residues[$1].atomCount }
        return Result(structure: out, superposition: fit, sourceAtoms: pairs.map(\.0),
                      unpaired: chainAtoms - pairs.count, otherUnpaired: otherChainAtoms - pairs.count,
                      worstLinearBondChange: worstLinear, worstBondChange: worst,
                      clashes: models.map { BackboneClash.count(in: $0) })
    }

    /// Atom pairs (this model's index, the other's) of the aligned residues, in this model's order.
    static func atomPairs(_ model: Model, _ chainIndex: Int, _ other: Model, _ otherChainIndex: Int,
                          residuePairs: [SuperpositionResult.Pair]) -> [(Int, Int)] {
        struct Key: Hashable { var number: Int32; var insertion: UInt8 }
        func residues(_ m: Model, _ c: Int) -> [Key: Int] {
            var found: [Key: Int] = [:]
            for r in m.chains[c].residueRange {
                let key = Key(number: m.residues[r].number, insertion: m.residues[r].insertionCode)
                if found[key] == nil { found[key] = r }
            }
            return found
        }
        let ours = residues(model, chainIndex), theirs = residues(other, otherChainIndex)
        var out: [(Int, Int)] = []
        for pair in residuePairs {
            guard let r = ours[Key(number: pair.b.number, insertion: pair.b.insertionCode)],
                  let s = theirs[Key(number: pair.a.number, insertion: pair.a.insertionCode)] else { continue }
            let ourName = canonicalResidue(model.residues[r].name), theirName = canonicalResidue(other.residues[s].name)
            let sameResidue = ourName == theirName
            var named: [String: Int] = [:]
            for a in other.residues[s].atomRange {
                let name = canonicalName(other.atoms.names[a], residue: theirName)
                if named[name] == nil { named[name] = a }
            }
            var seen = Set<String>()
            for a in model.residues[r].atomRange {
                let name = canonicalName(model.atoms.names[a], residue: ourName)
                guard !seen.contains(name), sameResidue || backbone.contains(name), let b = named[name] else { continue }
                seen.insert(name)  // the first alternate location
                out.append((a, b))
            }
        }
        return out.sorted { $0.0 < $1.0 }
    }

    static let backbone: Set<String> = ["N", "CA", "C", "O"]

    /// Atoms a residue's symmetry makes equivalent, named either way round by files (and by the
    /// PDB's own rule only since 2007), and valine's and leucine's two methyls (prochiral, which
    /// force fields and files name differently): swapped together.
    static let equivalentAtoms: [String: [[(String, String)]]] = [
        "ASP": [[("OD1", "OD2")]], "GLU": [[("OE1", "OE2")]], "ARG": [[("NH1", "NH2")]],
        "VAL": [[("CG1", "CG2")]], "LEU": [[("CD1", "CD2")]],
        "PHE": [[("CD1", "CD2"), ("CE1", "CE2")]], "TYR": [[("CD1", "CD2"), ("CE1", "CE2")]],
    ]

    /// Pairs each residue's equivalent atoms the way round that puts them nearer their partners,
    /// so that no carboxylate or ring turns inside out on the way.
    static func swapEquivalentAtoms(_ pairs: inout [(Int, Int)], _ model: Model, _ place: (Int) -> SIMD3<Double>) {
        let residueOf = model.residueIndexOfAtoms()
        var byResidue: [Int: [Int]] = [:]  // residue → indices into pairs
        for (k, pair) in pairs.enumerated() { byResidue[Int(residueOf[pair.0]), default: []].append(k) }
        for (r, members) in byResidue {
            guard let groups = equivalentAtoms[model.residues[r].name] else { continue }
            func member(_ name: String) -> Int? { members.first { model.atoms.names[pairs[$0].0] == name } }
            for group in groups {
                let found = group.compactMap { a, b in member(a).flatMap { x in member(b).map { (x, $0) } } }
                guard found.count == group.count else { continue }
                func cost(_ swapped: Bool) -> Double {
                    found.reduce(0) { sum, xy in
                        let (x, y) = xy
                        let px = SIMD3<Double>(model.atoms.positions[pairs[x].0]), py = SIMD3<Double>(model.atoms.positions[pairs[y].0])
                        let (qx, qy) = swapped ? (place(pairs[y].1), place(pairs[x].1)) : (place(pairs[x].1), place(pairs[y].1))
                        return sum + lengthSquared(px - qx) + lengthSquared(py - qy)
                    }
                }
                guard cost(true) < cost(false) else { continue }
                for (x, y) in found { (pairs[x].1, pairs[y].1) = (pairs[y].1, pairs[x].1) }
            }
        }
    }

    /// An atom's name as the PDB's chemical components name it (CHARMM's differ in a few places).
    static func canonicalName(_ name: String, residue: String) -> String {
        switch name {
        case "CD" where residue == "ILE": return "CD1"
        case "OT1": return "O"
        case "OT2": return "OXT"
        default: return name
        }
    }

    /// A residue's name as the PDB names it (CHARMM names histidine by its tautomer).
    static func canonicalResidue(_ name: String) -> String { ["HSD", "HSE", "HSP"].contains(name) ? "HIS" : name }

    /// This model's chain `chainIndex` reduced to `atoms` (ascending indices), residues and all.
    static func frameModel(_ model: Model, chainIndex: Int, atoms: [Int]) -> Model {
        var out = Model(number: 1)
        let residueOf = model.residueIndexOfAtoms()
        var k = 0
        while k < atoms.count {
            let r = Int(residueOf[atoms[k]])
            let start = Int32(out.atoms.count)
            while k < atoms.count && Int(residueOf[atoms[k]]) == r {
                out.atoms.append(model.atoms[atoms[k]])
                k += 1
            }
            var residue = model.residues[r]
            residue.atomStart = start
            residue.atomEnd = Int32(out.atoms.count)
            out.residues.append(residue)
        }
        var chain = model.chains[chainIndex]
        chain.residueStart = 0
        chain.residueEnd = Int32(out.residues.count)
        out.chains = [chain]
        out.residueLabelAsym = out.residues.isEmpty ? [] : [String](repeating: chain.labelID, count: out.residues.count)
        return out
    }
}

/// Distances a frame keeps: each bond's, and each angle's (its two outer atoms'), interpolated
/// between the two ends; and backbone atoms kept apart as `BackboneClash` wants, where the ends
/// have them apart.
struct Restraints {
    struct BackboneAtom { var atom: Int; var residue: Int; var nitrogen: Bool; var oxygen: Bool }
    var pairs: [(Int, Int, start: Double, end: Double)] = []
    var bondCount = 0
    var backbone: [BackboneAtom] = []
    let start: [SIMD3<Double>], end: [SIMD3<Double>]

    init(bonds: BondList, backbone model: Model, start: [SIMD3<Double>], end: [SIMD3<Double>]) {
        self.start = start
        self.end = end
        let residueOf = model.residueIndexOfAtoms()
        for a in 0..<model.atoms.count where BackboneClash.atomNames.contains(model.atoms.names[a]) {
            backbone.append(BackboneAtom(atom: a, residue: Int(residueOf[a]), nitrogen: model.atoms.names[a] == "N", oxygen: model.atoms.names[a] == "O"))
        }
        var neighbours = [[Int]](repeating: [], count: start.count)
        func add(_ i: Int, _ j: Int) {
            pairs.append((i, j, distance(start[i], start[j]), distance(end[i], end[j])))
        }
        for k in 0..<bonds.count {
            let i = Int(bonds.a[k]), j = Int(bonds.b[k])
            add(i, j)
            neighbours[i].append(j); neighbours[j].append(i)
        }
        bondCount = pairs.count
        for centre in neighbours.indices {
            let n = neighbours[centre]
            for x in 0..<n.count { for y in (x + 1)..<max(x + 1, n.count) { add(n[x], n[y]) } }
        }
    }

    /// The largest relative change of a bond from its length interpolated at `t`.
    func worstBondChange(_ p: [SIMD3<Double>], t: Double) -> Double {
        var worst = 0.0
        for (i, j, a, b) in pairs.prefix(bondCount) {
            let target = a + (b - a) * t
            guard target > 0 else { continue }
            worst = max(worst, abs(distance(p[i], p[j]) - target) / target)
        }
        return worst
    }

    /// Moves both atoms of each pair halfway towards its length, `rounds` times over, and every third
    /// round pushes clashing backbone atoms apart.
    func restore(_ p: inout [SIMD3<Double>], t: Double, rounds: Int) {
        for round in 0..<rounds {
            if round + 20 < rounds { separate(&p) }
            for (i, j, a, b) in pairs {
                let d = p[j] - p[i]
                let length = (d * d).sum().squareRoot()
                guard length > 1e-9 else { continue }
                let move = d * ((length - (a + (b - a) * t)) / length * 0.5)
                p[i] += move
                p[j] -= move
            }
        }
    }
}

extension Restraints {
    /// Backbone atoms of residues at least two apart pushed apart (each half the way) to the clash
    /// rule's distance, unless the ends themselves have them nearer.
    static let clearance = 0.1

    func separate(_ p: inout [SIMD3<Double>]) {
        let points = backbone.map { SIMD3<Float>(p[$0.atom]) }
        let grid = SpatialGrid(points: points, cellSize: 3.0)
        for i in backbone.indices {
            let a = backbone[i]
            grid.forEachCandidate(near: points[i]) { j in
                let b = backbone[j]
                guard j > i, abs(a.residue - b.residue) >= BackboneClash.residueSeparation else { return true }
                let limit = BackboneClash.minimumDistance(nitrogenAndOxygen: (a.nitrogen && b.oxygen) || (a.oxygen && b.nitrogen))
                let d = p[b.atom] - p[a.atom]
                let length = (d * d).sum().squareRoot()
                guard length < limit, length > 1e-9, distance(start[a.atom], start[b.atom]) >= limit,
                      distance(end[a.atom], end[b.atom]) >= limit else { return true }
                // A little past the limit, so that the bonds' last rounds leave them clear of it.
                let move = d * ((length - limit - Self.clearance) / length * 0.5)
                p[a.atom] += move
                p[b.atom] -= move
                return true
            }
        }
    }
}

public enum MorphError: Error, Equatable, CustomStringConvertible {
    case frames(Int, most: Int)
    case superposition(SuperpositionError)
    case tooFewAtoms(Int)

    public var description: String {
        switch self {
        case .frames(let n, let most): return "frames \(n): expected 2 to \(most)"
        case .superposition(let e): return "\(e)"
        case .tooFewAtoms(let n): return "only \(n) atoms pair up between the two chains; a morph needs the same protein in both"
        }
    }
}
