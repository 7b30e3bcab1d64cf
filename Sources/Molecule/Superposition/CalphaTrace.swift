/// One chain's Cα trace: its protein residues in chain order, each with its Cα position and
/// one-letter code, as superposition pairs them.
///
/// A residue counts when it has an atom named "CA" and either its name is an amino acid
/// (`ResidueKind.aminoAcid`: the standard ones and the common modified ones such as MSE) or it is
/// some other modified amino acid, with N, CA and C and a peptide bond to its neighbour in the
/// chain (SME, methionine sulfoxide, in 2JUY), whose one-letter code is then "X". Of several alternate locations the first in the file is
/// taken (`Model.atomIndex(named:inResidue:)`).
public struct CalphaTrace: Sendable, Equatable {
    /// One residue of the trace, named the way files name residues.
    public struct Residue: Sendable, Equatable {
        public var number: Int32
        public var insertionCode: UInt8
        public var name: String
        public var code: Character
        public var position: SIMD3<Double>

        public init(number: Int32, insertionCode: UInt8 = 0, name: String, code: Character, position: SIMD3<Double>) {
            self.number = number; self.insertionCode = insertionCode; self.name = name; self.code = code
            self.position = position
        }

        /// "123A" style label.
        public var label: String { insertionCode == 0 ? "\(number)" : "\(number)\(Character(UnicodeScalar(insertionCode)))" }
    }

    /// The author chain id.
    public var chainID: String
    public var residues: [Residue]

    public init(chainID: String, residues: [Residue]) { self.chainID = chainID; self.residues = residues }

    public var count: Int { residues.count }
    public var positions: [SIMD3<Double>] { residues.map(\.position) }
    /// The one-letter sequence ("X" for an amino acid without a code of its own).
    public var sequence: [Character] { residues.map(\.code) }

    /// The trace of chain `chainIndex` of `model`.
    public init(model: Model, chainIndex: Int) {
        let chain = model.chains[chainIndex]
        var residues: [Residue] = []
        for r in chain.residueRange {
            let res = model.residues[r]
            guard let ca = model.atomIndex(named: "CA", inResidue: r) else { continue }
            switch res.kind {
            case .aminoAcid: break
            case .other:
                guard Self.isPeptideLinked(model, r, in: chain) else { continue }
            case .nucleotide, .water: continue
            }
            let p = model.atoms.positions[ca]
            residues.append(Residue(number: res.number, insertionCode: res.insertionCode, name: res.name,
                                    code: ResidueKind.oneLetterCode(res.name),
                                    position: SIMD3(Double(p.x), Double(p.y), Double(p.z))))
        }
        self.init(chainID: chain.id, residues: residues)
    }

    /// Longest C–N distance of a peptide bond taken as one, Å (1.33 Å in an ideal one).
    static let peptideBond: Float = 2.0

    /// Whether residue `r` has N, CA and C and is joined by a peptide bond to the residue before or
    /// after it in its chain: a modified amino acid within the polymer, not a ligand that happens to
    /// have atoms named so (1BMA's inhibitor 0QH).
    static func isPeptideLinked(_ model: Model, _ r: Int, in chain: Chain) -> Bool {
        guard let n = model.atomIndex(named: "N", inResidue: r), let c = model.atomIndex(named: "C", inResidue: r) else { return false }
        func close(_ a: Int, _ b: Int) -> Bool {
            let d = model.atoms.positions[a] - model.atoms.positions[b]
            return (d * d).sum() <= peptideBond * peptideBond
        }
        if r > chain.residueRange.lowerBound, let previousC = model.atomIndex(named: "C", inResidue: r - 1), close(n, previousC) { return true }
        if r + 1 < chain.residueRange.upperBound, let nextN = model.atomIndex(named: "N", inResidue: r + 1), close(c, nextN) { return true }
        return false
    }

    /// Every chain of `model` with at least one protein residue, in the model's chain order.
    /// Chains that a file splits (a chain id met twice) are kept apart as the model keeps them.
    public static func proteinChains(of model: Model) -> [CalphaTrace] {
        model.chains.indices.map { CalphaTrace(model: model, chainIndex: $0) }.filter { !$0.residues.isEmpty }
    }
}
