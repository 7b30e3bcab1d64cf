import Geometry

/// Superposes one structure on another by their Cα, as ChimeraX's matchmaker and TM-align do:
///
/// 1. each protein chain's Cα trace (first model unless another is named; first alternate location);
/// 2. the chain pair: those named, else the pair whose sequences align with the highest score
///    (`SequenceAlignment`: BLOSUM62, gaps 11 + 1 per residue, free end gaps);
/// 3. residue pairs: the sequence alignment's, or, when its identity is below
///    `Options.structureBelowIdentity` (or when asked), pairs found from the structures
///    (`StructureAlignment`, TM-align-like);
/// 4. the fit: Kabsch (Horn's quaternion) with matchmaker's pruning (`PrunedFit`: pairs beyond
///    2.0 Å dropped over cycles, at least half kept);
/// 5. the TM-score normalised by B's length (the target's), at its own best superposition
///    (`TMScore.search`), comparable with TM-align's score normalised by its second chain.
///
/// A moves onto B: `transform` applied to A's coordinates puts them on B's.
public enum Superposition {
    public enum Pairing: String, Sendable, Equatable, CaseIterable {
        /// By sequence, or by structure when the sequence identity is low.
        case automatic = "auto"
        case sequence, structure
    }

    public struct Options: Sendable, Equatable {
        public var chainA: String?
        public var chainB: String?
        /// Model numbers (as the file numbers them); the first model when nil.
        public var modelA: Int?
        public var modelB: Int?
        public var pairing: Pairing
        /// Automatic pairing uses the structure below this sequence identity (a fraction).
        public var structureBelowIdentity: Double
        public var pruning: PrunedFit.Rule

        public init(chainA: String? = nil, chainB: String? = nil, modelA: Int? = nil, modelB: Int? = nil,
                    pairing: Pairing = .automatic, structureBelowIdentity: Double = 0.4, pruning: PrunedFit.Rule = .matchmaker) {
            self.chainA = chainA; self.chainB = chainB; self.modelA = modelA; self.modelB = modelB
            self.pairing = pairing; self.structureBelowIdentity = structureBelowIdentity; self.pruning = pruning
        }
    }

    /// The fewest residue pairs a superposition is made from.
    public static let minimumPairs = 3

    /// Superposes `a` onto `b`.
    public static func superpose(_ a: Structure, onto b: Structure, options: Options = Options()) throws(SuperpositionError) -> SuperpositionResult {
        let modelA = try model(a, number: options.modelA, side: "A")
        let modelB = try model(b, number: options.modelB, side: "B")
        let tracesA = CalphaTrace.proteinChains(of: modelA), tracesB = CalphaTrace.proteinChains(of: modelB)
        guard !tracesA.isEmpty else { throw .noProteinChain(side: "A") }
        guard !tracesB.isEmpty else { throw .noProteinChain(side: "B") }
        let candidatesA = try chains(tracesA, named: options.chainA, side: "A", model: modelA)
        let candidatesB = try chains(tracesB, named: options.chainB, side: "B", model: modelB)
        // The chain pair whose sequences align best (the first such pair in chain order on a tie),
        // ranked by score alone; chains with the same sequences (oligomers) are scored once.
        var chosen: (CalphaTrace, CalphaTrace, Double)?
        var scored: [[Character]: [[Character]: Double]] = [:]
        for ta in candidatesA {
            let sa = ta.sequence
            for tb in candidatesB {
                let sb = tb.sequence
                let score = scored[sa]?[sb] ?? SequenceAlignment.score(sa, sb)
                scored[sa, default: [:]][sb] = score
                if chosen == nil || score > chosen?.2 ?? 0 { chosen = (ta, tb, score) }
            }
        }
        guard let (ta, tb, _) = chosen else { throw .noProteinChain(side: "A") }
        return try superpose(ta, onto: tb, options: options)
    }

    /// Superposes trace `ta` onto trace `tb`.
    public static func superpose(_ ta: CalphaTrace, onto tb: CalphaTrace, options: Options = Options()) throws(SuperpositionError) -> SuperpositionResult {
        let seqA = ta.sequence, seqB = tb.sequence
        let bySequence = SequenceAlignment.align(seqA, seqB)
        let a = ta.positions, b = tb.positions
        let sequenceIdentity = bySequence.count == 0 ? 0
            : Double(SequenceAlignment.identities(bySequence, seqA, seqB)) / Double(bySequence.count)
        let useStructure: Bool
        switch options.pairing {
        case .sequence: useStructure = false
        case .structure: useStructure = true
        case .automatic: useStructure = sequenceIdentity < options.structureBelowIdentity || bySequence.count < minimumPairs
        }
        var alignment = bySequence
        var tm: TMScore.Best?
        if useStructure {
            var starts: [RigidTransform] = []
            if bySequence.count >= minimumPairs,
               let fit = PrunedFit(bySequence.first.map { a[$0] }, bySequence.second.map { b[$0] }, rule: options.pruning) {
                starts.append(fit.transform)
            }
            if let found = StructureAlignment.align(moving: a, target: b, starts: starts) {
                alignment = found.alignment
                tm = TMScore.Best(score: found.tmScore, transform: found.transform)
            }
        }
        guard alignment.count >= minimumPairs else {
            throw .tooFewAlignedResidues(count: alignment.count, needed: minimumPairs, chainA: ta.chainID, chainB: tb.chainID)
        }
        let pa = alignment.first.map { a[$0] }, pb = alignment.second.map { b[$0] }
        guard let fit = PrunedFit(pa, pb, rule: options.pruning) else {
            throw .tooFewAlignedResidues(count: 0, needed: minimumPairs, chainA: ta.chainID, chainB: tb.chainID)
        }
        let best = tm ?? TMScore.search(pa, pb, normalisingLength: b.count, step: max(1, pa.count / 200))
        let kept = Set(fit.kept)
        var pairs: [SuperpositionResult.Pair] = []
        var identical = 0
        for (k, (i, j)) in alignment.pairs.enumerated() {
            if seqA[i] == seqB[j] { identical += 1 }
            pairs.append(.init(a: ta.residues[i], b: tb.residues[j], distance: distance(fit.transform.apply(a[i]), b[j]),
                               kept: kept.contains(k)))
        }
        return SuperpositionResult(
            chainA: ta.chainID, chainB: tb.chainID, lengthA: ta.count, lengthB: tb.count,
            pairing: useStructure ? .structure : .sequence, transform: fit.transform, pairs: pairs,
            rmsd: fit.rmsd, rmsdAll: fit.rmsdAll, rmsdAllFitted: fit.rmsdAllFitted, cycles: fit.cycles,
            sequenceIdentity: Double(identical) / Double(alignment.count), sequenceAlignmentIdentity: sequenceIdentity,
            sequenceAlignmentLength: bySequence.count, sequenceAlignmentScore: bySequence.score, tmScore: best.score, tmTransform: best.transform)
    }

    static func model(_ s: Structure, number: Int?, side: String) throws(SuperpositionError) -> Model {
        guard let number else {
            guard let first = s.firstModel else { throw .noProteinChain(side: side) }
            return first
        }
        guard let m = s.models.first(where: { $0.number == number }) else {
            throw .modelNotFound(side: side, number: number, available: s.models.map(\.number))
        }
        return m
    }

    static func chains(_ traces: [CalphaTrace], named id: String?, side: String, model: Model) throws(SuperpositionError) -> [CalphaTrace] {
        guard let id else { return traces }
        let found = traces.filter { $0.chainID == id }
        if found.isEmpty {
            if model.chains.contains(where: { $0.id == id }) { throw .chainNotProtein(side: side, chain: id) }
            throw .chainNotFound(side: side, chain: id, available: traces.map(\.chainID))
        }
        return found
    }
}

/// What `Superposition.superpose` found.
public struct SuperpositionResult: Sendable {
    public struct Pair: Sendable, Equatable {
        public var a: CalphaTrace.Residue
        public var b: CalphaTrace.Residue
        /// Cα–Cα distance after `transform`, Å.
        public var distance: Double
        /// Whether the pruned fit kept this pair.
        public var kept: Bool
    }

    public var chainA: String
    public var chainB: String
    /// Protein residues (with a Cα) in each chain.
    public var lengthA: Int
    public var lengthB: Int
    /// How the residues were paired.
    public var pairing: Superposition.Pairing
    /// Moves A onto B (the pruned fit's).
    public var transform: RigidTransform
    public var pairs: [Pair]
    /// RMSD of the pairs the pruned fit kept, Å.
    public var rmsd: Double
    /// RMSD of all aligned pairs after `transform`, Å.
    public var rmsdAll: Double
    /// RMSD of all aligned pairs after their own best fit, Å (TM-align's RMSD is of this kind).
    public var rmsdAllFitted: Double
    /// Pruning cycles.
    public var cycles: Int
    /// Identical residues among the aligned pairs, as a fraction of them.
    public var sequenceIdentity: Double
    /// The same over the sequence alignment's pairs (what chose the pairing), and their number.
    public var sequenceAlignmentIdentity: Double
    public var sequenceAlignmentLength: Int
    public var sequenceAlignmentScore: Double
    /// TM-score normalised by B's length, and the superposition that gives it.
    public var tmScore: Double
    public var tmTransform: RigidTransform

    public var alignedLength: Int { pairs.count }
    public var keptLength: Int { pairs.reduce(0) { $0 + ($1.kept ? 1 : 0) } }
}

public enum SuperpositionError: Error, Equatable, CustomStringConvertible {
    case noProteinChain(side: String)
    case chainNotFound(side: String, chain: String, available: [String])
    case chainNotProtein(side: String, chain: String)
    case modelNotFound(side: String, number: Int, available: [Int])
    case tooFewAlignedResidues(count: Int, needed: Int, chainA: String, chainB: String)

    public var description: String {
        switch self {
        case .noProteinChain(let side):
            return "structure \(side) has no protein chain (no amino-acid residue with a CA atom)"
        case .chainNotFound(let side, let chain, let available):
            return "structure \(side) has no chain '\(chain)'; its protein chains: \(available.joined(separator: ", "))"
        case .chainNotProtein(let side, let chain):
            return "chain '\(chain)' of structure \(side) has no protein residue with a CA atom"
        case .modelNotFound(let side, let number, let available):
            let list = available.count > 10 ? "\(available.prefix(10).map(String.init).joined(separator: ", "))…" : available.map(String.init).joined(separator: ", ")
            return "structure \(side) has no model \(number); its models: \(list)"
        case .tooFewAlignedResidues(let count, let needed, let chainA, let chainB):
            return "too few aligned residues between chain \(chainA) of A and chain \(chainB) of B (\(count); at least \(needed) needed)"
        }
    }
}
