import Geometry
import Foundation
import Molecule

/// Builds a design into a real polypeptide and judges it. Pieces are placed one after the other.
/// Helices, strands and rigid coils keep their ideal torsions; the flexible coil between two pieces
/// is searched (seeded, so a design is reproducible) for a conformation in which the next piece
/// packs against what is already there without clashes. Two strands joined by a short coil are
/// closed into a β-hairpin whose strands pair (`HairpinClosure.swift`). What cannot be found is the
/// reason a combination cannot be made.
public enum ProteinDesigner {
    /// `libraryIDs`: the molecules at hand, so a recognised motif can point at a real example.
    ///
    /// The verdict does not depend on the seed: it is that of the canonical builds (fixed seeds,
    /// tried in turn until one holds together). The person's seed then only chooses among valid
    /// conformations: their own build is returned when it holds together too, else the canonical
    /// one. A refusal gives the first canonical build's reasons, the same for every seed.
    public static func build(_ spec: DesignSpec, libraryIDs: Set<String> = []) -> Design {
        // Hydrogens do not change the verdict: only the build that is kept gets them, made again
        // with them (the same seed builds the same chain).
        func seeded(_ seed: UInt64, hydrogens: Bool = false) -> DesignSpec {
            var fixed = spec
            fixed.seed = seed
            fixed.hydrogens = hydrogens
            return fixed
        }
        // The person's build and the first canonical one are independent: built side by side.
        let own = seeded(spec.seed), firstCanonical = seeded(canonicalSeeds[0])
        let (ownDesign, first) = inParallel({ attempt(own, libraryIDs: libraryIDs) }, { attempt(firstCanonical, libraryIDs: libraryIDs) })
        var canonical = first
        for seed in canonicalSeeds.dropFirst() where !canonical.verdict.isValid {
            let design = attempt(seeded(seed), libraryIDs: libraryIDs)
            if design.verdict.isValid { canonical = design }
        }
        var chosen = canonical.verdict.isValid && ownDesign.verdict.isValid ? ownDesign : canonical
        if spec.hydrogens { chosen = attempt(seeded(chosen.spec.seed, hydrogens: true), libraryIDs: libraryIDs) }
        chosen.spec.seed = spec.seed
        return chosen
    }

    /// Runs two independent computations on two threads (Dispatch, on every platform Foundation
    /// runs on) and returns both results.
    static func inParallel<A: Sendable, B: Sendable>(_ a: @Sendable () -> A, _ b: @Sendable () -> B) -> (A, B) {
        let slots = ParallelSlots<A, B>()
        withoutActuallyEscaping(a) { a in
            withoutActuallyEscaping(b) { b in
                DispatchQueue.concurrentPerform(iterations: 2) { k in
                    if k == 0 { slots.a = a() } else { slots.b = b() }
                }
            }
        }
        guard let resultA = slots.a, let resultB = slots.b else { preconditionFailure("concurrentPerform ran every iteration") }
        return (resultA, resultB)
    }

    /// The seeds of the canonical builds.
    static let canonicalSeeds: [UInt64] = [0x5EED_0001, 0x5EED_0002, 0x5EED_0003]

    /// One build with the spec's own seed, and its verdict.
    static func attempt(_ spec: DesignSpec, libraryIDs: Set<String>) -> Design {
        var builder = Builder(spec: spec)
        builder.run()
        let backbone = builder.placed
        let packer = backbone.packer
        let sideChains = packer.packSideChains()
        // Hydrogens, when wanted, are weighed in a second packing, kept unless it leaves more
        // heavy-atom clashes than the first (on which the verdict is judged, so it stands).
        var shown = sideChains
        if spec.hydrogens {
            let withHydrogens = packer.packSideChains(hydrogens: true)
            shown = packer.clearHydrogens(withHydrogens.clashes <= sideChains.clashes ? withHydrogens : sideChains)
        }
        let structure = backbone.makeStructure(sideChains: shown, hydrogens: spec.hydrogens)
        let secondary = structure.secondaryStructure(compute: true)
        var result = Design(spec: spec, structure: structure, verdict: Verdict(isValid: false, message: "", reasons: [], motifs: []),
                            secondaryStructure: secondary, pieceRanges: spec.pieceRanges)
        result.verdict = backbone.verdict(secondaryStructure: secondary, sideChains: sideChains, libraryIDs: libraryIDs)
        result.structure.secondaryStructureRecords = records(from: secondary)
        return result
    }

    /// HELIX/SHEET records from the assignment, so files and cartoons show what DSSP finds.
    static func records(from codes: [SecondaryStructureCode]) -> [SecondaryStructureRecord] {
        var out: [SecondaryStructureRecord] = []
        var i = 0
        while i < codes.count {
            let three = codes[i].threeState
            var j = i
            while j + 1 < codes.count && codes[j + 1].threeState == three { j += 1 }
            let start = ResidueRef(chainID: "A", number: Int32(i + 1)), end = ResidueRef(chainID: "A", number: Int32(j + 1))
            if three == "H" { out.append(SecondaryStructureRecord(kind: .helix(.alpha), start: start, end: end)) }
            if three == "E" { out.append(SecondaryStructureRecord(kind: .strand(sheetID: "A", sense: 0), start: start, end: end)) }
            i = j + 1
        }
        return out
    }
}

/// The two results of `ProteinDesigner.inParallel`: each iteration writes its own slot, and
/// `concurrentPerform` returns only after both, so no slot is read while written.
private final class ParallelSlots<A, B>: @unchecked Sendable {
    var a: A?
    var b: B?
}

/// A helix or strand of the design: consecutive pieces of one kind form one element.
struct SecondaryElement {
    var kind: PieceKind
    var residues: Range<Int>
    var pieces: [Int]            // indices into spec.pieces
}

/// The coil before an element (possibly empty), or a trailing coil (element nil).
struct Junction {
    var coil: Range<Int>
    var coilPieces: [Int]
    var element: Int?            // index into elements
    // What the search found:
    var clashes = 0
    var clashPartner: Int?       // residue the worst clash was with
    var contacts = 0
    var hydrogenBonds = 0
    var packed = true
    var paired = true
    var bridges = 0
}

extension Junction {
    /// The strand this junction's strand pairs with as a β-hairpin: the strand just before, when the
    /// coil between them is short enough to turn the chain back.
    func hairpinPartner(in elements: [SecondaryElement]) -> SecondaryElement? {
        guard let e = element, e > 0, elements[e].kind == .strand, elements[e - 1].kind == .strand,
              coil.count <= hairpinCoilMaximum else { return nil }
        return elements[e - 1]
    }
}

private let contactDistance = 7.5       // Å between Cβ (Cα of glycine) of two pieces
let hairpinCoilMaximum = 5      // residues: longer coils join strands that need not pair
let pairingBridges = 2          // consecutive β-bridges make a ladder, DSSP's E
private let pairingWindow = 12          // residues each side of a hairpin's turn that are scored
private let evaluationBudget = 60_000   // residues built per joint, all conformations together
private let roundSize = 32
private let maximumRounds = 16
private let refinementSteps = 160
private let hairpinStarts = 24          // coil shapes drawn as starts for closing a hairpin
private let hairpinChoices = 2          // closed hairpins found before the firmest is taken

struct Builder {
    let spec: DesignSpec
    var chain: BackboneChain
    var elements: [SecondaryElement] = []
    var junctions: [Junction] = []
    var clashGrid = AtomGrid(cellSize: 3.0)
    var anchorGrid = AtomGrid(cellSize: contactDistance)
    var random: SeededGenerator
    var pieceOfResidue: [Int] = []
    var totalClashes = 0

    init(spec: DesignSpec) {
        self.spec = spec
        chain = BackboneChain(sequence: spec.sequence)
        random = SeededGenerator(seed: spec.seed)
        for (p, range) in spec.pieceRanges.enumerated() { pieceOfResidue += Array(repeating: p, count: range.count) }
        segment()
    }

    /// Splits the pieces into elements and the coils before them, and sets the fixed torsions.
    mutating func segment() {
        var coilStart = 0
        var coilPieces: [Int] = []
        for (p, range) in spec.pieceRanges.enumerated() {
            let kind = spec.pieces[p].kind
            if let (phi, psi) = kind.idealTorsions {
                for r in range { chain.phi[r] = radians(phi); chain.psi[r] = radians(psi) }
            }
            if kind.isCoil {
                if coilPieces.isEmpty { coilStart = range.lowerBound }
                coilPieces.append(p)
                continue
            }
            if coilPieces.isEmpty, let last = elements.indices.last, elements[last].kind == kind,
               elements[last].residues.upperBound == range.lowerBound {
                elements[last].residues = elements[last].residues.lowerBound..<range.upperBound
                elements[last].pieces.append(p)
                continue
            }
            let coil = coilPieces.isEmpty ? range.lowerBound..<range.lowerBound : coilStart..<range.lowerBound
            elements.append(SecondaryElement(kind: kind, residues: range, pieces: [p]))
            junctions.append(Junction(coil: coil, coilPieces: coilPieces, element: elements.count - 1))
            coilPieces = []
        }
        if !coilPieces.isEmpty {
            junctions.append(Junction(coil: coilStart..<spec.residueCount, coilPieces: coilPieces, element: nil))
        }
    }

    mutating func run() {
        for j in junctions.indices { place(junction: j) }
    }

    // MARK: The search

    struct Score: Comparable {
        var clashes: Int
        /// How deep the clashes go, summed (Å): smooth, so the search can pass a small overlap on
        /// its way to a better fold and then remove it.
        var overlap: Double
        var hydrogenBonds: Int
        var contacts: Int
        /// For a hairpin: how far the new strand's Cα are from lying beside the partner's (Å²).
        var misalignment = 0.0
        /// For a hairpin: antiparallel β-bridges (DSSP's definition) between the two strands.
        var bridges = 0
        var value: Double {
            // A clash outweighs anything a fold gains by it; a deep one more than a shallow one.
            overlap * 3000 + Double(clashes) * 100 - Double(bridges) * 60 - Double(hydrogenBonds) * 10 - Double(contacts) + 2 * misalignment
        }
        static func < (a: Score, b: Score) -> Bool { a.value < b.value }
    }

    mutating func place(junction j: Int) {
        let junction = junctions[j]
        let element = junction.element.map { elements[$0] }
        let hi = element?.residues.upperBound ?? junction.coil.upperBound
        let earlierElements = elements[..<(junction.element ?? elements.count)]
        let needsContacts = element != nil && !earlierElements.isEmpty
        // A quarter of the new piece, or of what came before when that is smaller: a long helix
        // after a short one can only touch as much as the short one offers.
        let earlierCount = elements[..<(junction.element ?? elements.count)].reduce(0) { $0 + $1.residues.count }
        let contactsNeeded = element.map { max(1, min(2, $0.residues.count), min($0.residues.count, earlierCount) / 4) } ?? 0
        // Two strands joined by a short coil should pair, as a β-hairpin.
        let hairpinPartner = junction.hairpinPartner(in: elements)
        // A hairpin's turn also bends the first strand's last residue, as in real hairpins: it is
        // taken back out of the grids and placed again with the coil.
        let turnsFirstStrand = hairpinPartner != nil && !junction.coil.isEmpty
        let lo = junction.coil.lowerBound - (turnsFirstStrand ? 1 : 0)
        if turnsFirstStrand {
            clashGrid.removeTrailing(residue: lo)
            anchorGrid.removeTrailing(residue: lo)
        }
        // A hairpin's strands pair along their length, as DSSP sees it: at least 80 % of the
        // shorter strand's residues bridged (the chain's first residue, with no N–H, cannot be).
        let bridgesNeeded = max(pairingBridges, hairpinPartner.map { partner in
            Int((0.8 * Double(min(min(partner.residues.count, element!.residues.count), pairingWindow))).rounded(.up))
        } ?? 0)
        // Pairing is judged near the turn: the partner's last and the new strand's first residues
        // (the rest of two ideal strands follows rigidly), which keeps long strands cheap.
        let pairingNew = element.map { $0.residues.lowerBound..<min($0.residues.upperBound, $0.residues.lowerBound + pairingWindow) }
        let pairingPartner = hairpinPartner.map { max($0.residues.lowerBound, $0.residues.upperBound - pairingWindow)..<$0.residues.upperBound }
        // A hairpin's strands run side by side only if the strand's first residues adapt to the
        // turn, as in real hairpins: they move with the coil, within the β region.
        let flank = hairpinPartner.map { _ in min(2, element!.residues.count - 1) } ?? 0
        let movableRange = lo..<(junction.coil.upperBound + flank)
        let movable = Array(movableRange)
        let coil = Array(junction.coil)

        func evaluate(_ builder: inout Builder) -> (Score, Int?) {
            builder.chain.build(lo..<hi)
            let (clashes, overlap, partner) = builder.clashes(in: lo..<hi, movable: movableRange)
            let contacts = needsContacts ? builder.contacts(of: element!.residues) : 0
            var bonds = 0, misalignment = 0.0, bridges = 0
            if let pairingNew, let pairingPartner {
                bonds = builder.chain.hydrogenBonds(between: pairingNew, and: Array(pairingPartner))
                misalignment = builder.chain.misalignment(of: pairingNew, beside: pairingPartner)
                bridges = builder.chain.bridges(between: pairingNew, and: pairingPartner, placed: hi)
            }
            return (Score(clashes: clashes, overlap: overlap, hydrogenBonds: bonds, contacts: min(contacts, contactsNeeded),
                          misalignment: misalignment, bridges: bridges), partner)
        }
        func goodEnough(_ s: Score) -> Bool {
            s.clashes == 0 && (!needsContacts || s.contacts >= contactsNeeded) && (hairpinPartner == nil || s.bridges >= bridgesNeeded)
        }

        typealias Candidate = (score: (Score, Int?), torsions: [(Double, Double)])
        func current(_ builder: inout Builder) -> Candidate {
            (evaluate(&builder), movable.map { (builder.chain.phi[$0], builder.chain.psi[$0]) })
        }
        func apply(_ torsions: [(Double, Double)], _ builder: inout Builder) {
            for (k, r) in movable.enumerated() { builder.chain.phi[r] = torsions[k].0; builder.chain.psi[r] = torsions[k].1 }
        }
        // Nudges a candidate while that helps, in steps shrinking from 20° to 4°: hydrogen bonds
        // want a precise register, and a small overlap left by a template is removed this way.
        func refine(_ start: Candidate, steps: Int, _ builder: inout Builder) -> Candidate {
            var best = start
            for step in 0..<steps {
                let size = 20 - 16 * Double(step) / Double(steps)
                for (k, r) in movable.enumerated() where builder.spec.pieces[builder.pieceOfResidue[r]].kind != .rigidCoil {
                    builder.chain.phi[r] = best.torsions[k].0 + radians(Double.random(in: -size...size, using: &builder.random))
                    builder.chain.psi[r] = best.torsions[k].1 + radians(Double.random(in: -size...size, using: &builder.random))
                }
                let candidate = current(&builder)
                if candidate.score.0 < best.score.0 { best = candidate }
            }
            return best
        }

        var best = current(&self)
        // A hairpin's coil is closed onto the place the partner strand must take; what closes
        // and holds is chosen among by the seed.
        if let hairpinPartner, let element, !coil.isEmpty {
            let closed = closeHairpin(first: hairpinPartner.residues, coil: junction.coil, second: element.residues,
                                      starts: hairpinStarts, wanted: hairpinChoices, score: { evaluate(&$0).0 }, goodEnough: goodEnough)
            if !closed.isEmpty {
                let pick = closed[Int.random(in: 0..<closed.count, using: &random)]
                for (k, r) in (lo..<hi).enumerated() { (chain.phi[r], chain.psi[r]) = pick[k] }
                chain.build(lo..<hi)
                best = current(&self)
            }
        }
        if !coil.isEmpty && !goodEnough(best.score.0) {
            // The common turns first, where they fit the coil's residues.
            var template: Candidate?
            if coil.count == 2 && coil.allSatisfy({ spec.pieces[pieceOfResidue[$0]].kind == .flexibleCoil }) {
                let flanks = flank > 0 ? RamachandranRegion.hairpinFlanks : [[]]
                for turn in RamachandranRegion.twoResidueTurns {
                    for flankTorsions in flanks {
                        for (k, r) in coil.enumerated() { chain.phi[r] = radians(turn[k].0); chain.psi[r] = radians(turn[k].1) }
                        for (k, (phi, psi)) in flankTorsions.prefix(flank).enumerated() {
                            chain.phi[junction.coil.upperBound + k] = radians(phi); chain.psi[junction.coil.upperBound + k] = radians(psi)
                        }
                        let candidate = current(&self)
                        if candidate.score.0 < (template?.score.0 ?? best.score.0) { template = candidate }
                    }
                }
            }
            if let template, template.score.0 < best.score.0 { best = template }
            // Then random conformations, in rounds, until one will do.
            var sampled = best
            var round = 0
            // A hairpin samples at least one round, to compare registers; other joints stop at the
            // first conformation that will do.
            // Long joints get fewer tries, so no design costs more than a bounded amount of work.
            let rounds = min(maximumRounds, max(1, evaluationBudget / ((hi - lo) * roundSize)))
            sampling: while round < rounds && (!goodEnough(sampled.score.0) || (round == 0 && hairpinPartner != nil)) {
                for _ in 0..<roundSize {
                    sampleCoil(movable)
                    let candidate = current(&self)
                    if candidate.score.0 < sampled.score.0 { sampled = candidate }
                    if hairpinPartner == nil && goodEnough(sampled.score.0) { break sampling }
                }
                round += 1
            }
            best = sampled
            let steps = min(hairpinPartner == nil ? refinementSteps : 3 * refinementSteps, max(16, evaluationBudget / (hi - lo)))
            if !goodEnough(best.score.0) || hairpinPartner != nil { best = refine(best, steps: steps, &self) }
            // A template refined on its own can beat the sampled best (a hairpin a few tenths of an
            // ångström from clash-free, say), so it gets its own refinement.
            if let template, hairpinPartner != nil || !goodEnough(best.score.0) {
                let refined = refine(template, steps: steps, &self)
                if refined.score.0 < best.score.0 { best = refined }
            }
            apply(best.torsions, &self)
            chain.build(lo..<hi)
            best.score = evaluate(&self)
        }

        let score = best.score.0
        junctions[j].clashes = score.clashes
        junctions[j].clashPartner = best.score.1
        junctions[j].contacts = score.contacts
        junctions[j].hydrogenBonds = score.hydrogenBonds
        junctions[j].packed = !needsContacts || score.contacts >= contactsNeeded
        junctions[j].paired = hairpinPartner == nil || score.bridges >= bridgesNeeded
        junctions[j].bridges = score.bridges
        totalClashes += score.clashes
        for r in lo..<hi { insert(residue: r) }
    }

    /// New torsions: Ramachandran-allowed for a flexible coil, near polyproline II for a rigid one,
    /// within the β region for the first residues of a strand that closes a hairpin.
    mutating func sampleCoil(_ residues: [Int]) {
        for r in residues {
            let kind = spec.pieces[pieceOfResidue[r]].kind
            if kind == .strand {
                chain.phi[r] = radians(-139 + Double.random(in: -25...25, using: &random))
                chain.psi[r] = radians(135 + Double.random(in: -25...25, using: &random))
            } else if kind == .rigidCoil {
                chain.phi[r] = radians(-75 + Double.random(in: -10...10, using: &random))
                chain.psi[r] = radians(145 + Double.random(in: -10...10, using: &random))
            } else {
                (chain.phi[r], chain.psi[r]) = RamachandranRegion.sample(RamachandranRegion.regions(for: chain.sequence[r]), using: &random)
            }
        }
    }

    mutating func insert(residue r: Int) {
        let kinds: [AtomKind] = [.n, .ca, .c, .o, .cb]
        for (k, atom) in chain.atoms(of: r).enumerated() { clashGrid.insert(atom.position, residue: r, kind: kinds[k]) }
        anchorGrid.insert(chain.sideChainAnchor(r), residue: r, kind: .cb)
    }

    /// Atom pairs closer than allowed, between residues at least two apart: the new residues
    /// against those placed, and the movable coil against the new residues.
    func clashes(in range: Range<Int>, movable: Range<Int>) -> (count: Int, overlap: Double, partner: Int?) {
        let kinds: [AtomKind] = [.n, .ca, .c, .o, .cb]
        var count = 0
        var overlap = 0.0
        var partner: Int?
        var worst = Double.infinity
        var atoms: [[(SIMD3<Double>, AtomKind)]] = []
        for r in range {
            let own = chain.atoms(of: r).enumerated().map { ($0.element.position, kinds[$0.offset]) }
            atoms.append(own)
            for (p, kind) in own {
                clashGrid.visit(near: p) { e in
                    guard r - Int(e.residue) >= 2 else { return true }
                    let d = length(p - e.position)
                    let limit = AtomKind.minimumDistance(kind, e.kind)
                    if d < limit {
                        count += 1
                        overlap += limit - d
                        if d < worst { worst = d; partner = Int(e.residue) }
                    }
                    return true
                }
            }
        }
        // The movable residues against all new ones, through a grid of the new atoms: linear in
        // the number of residues, so a long coil costs no more per residue than a short one.
        guard !movable.isEmpty else { return (count, overlap, partner) }
        if range.count <= 64 {
            // Few residues: comparing pairs directly is cheaper than building a grid.
            for i in range where movable.contains(i) {
                for j in range where abs(i - j) >= 2 && !(movable.contains(j) && j < i) {
                    for (p, a) in atoms[i - range.lowerBound] {
                        for (q, b) in atoms[j - range.lowerBound] {
                            let d = length(p - q), limit = AtomKind.minimumDistance(a, b)
                            if d < limit { count += 1; overlap += limit - d }
                        }
                    }
                }
            }
            return (count, overlap, partner)
        }
        var local = AtomGrid(cellSize: 3.0)
        for (k, own) in atoms.enumerated() { for (p, kind) in own { local.insert(p, residue: range.lowerBound + k, kind: kind) } }
        for i in range where movable.contains(i) {
            for (p, a) in atoms[i - range.lowerBound] {
                local.visit(near: p) { e in
                    let j = Int(e.residue)
                    // Each pair once: a movable pair from its lower residue, others from the movable side.
                    guard abs(i - j) >= 2, !(movable.contains(j) && j < i) else { return true }
                    let d = length(p - e.position), limit = AtomKind.minimumDistance(a, e.kind)
                    if d < limit { count += 1; overlap += limit - d }
                    return true
                }
            }
        }
        return (count, overlap, partner)
    }

    /// Residues of `residues` whose side chain points within 7.5 Å of one of an earlier piece
    /// (more than four residues away in sequence, so the joining coil does not count).
    func contacts(of residues: Range<Int>) -> Int {
        var count = 0
        for r in residues {
            let p = chain.sideChainAnchor(r)
            var touching = false
            anchorGrid.visit(near: p) { e in
                if r - Int(e.residue) > 4 && length(p - e.position) < contactDistance { touching = true; return false }
                return true
            }
            if touching { count += 1 }
        }
        return count
    }
}
