import ProteinDesign

/// A built design as JSON: the one form both `POST /api/designs` and `proteinar build --json`
/// answer. The verdict (valid, message, reasons, the residues a refusal is about), the motifs with a
/// real example where the library holds one, the pieces with their residue ranges and colours, the
/// sequence and DSSP's letters; the server adds the links to the design's files (and the molecule
/// when kept), the command line the time it took.
public struct DesignAnswer: Encodable, Sendable {
    public struct Range: Encodable, Sendable { public var first: Int; public var last: Int }
    public struct Example: Encodable, Sendable { public var id: String; public var note: String }
    public struct MotifAnswer: Encodable, Sendable {
        public var name: String
        public var pieces: [Int]
        public var example: Example?
        public var note: String?
    }
    public struct PieceAnswer: Encodable, Sendable {
        public var kind: String
        public var name: String
        public var length: Int
        public var first: Int
        public var last: Int
        public var color: String
    }
    public struct Links: Encodable, Sendable {
        public var pdb, cif, glb, usdz: String
        public init(pdb: String, cif: String, glb: String, usdz: String) { self.pdb = pdb; self.cif = cif; self.glb = glb; self.usdz = usdz }
    }

    public var name: String
    public var valid: Bool
    public var message: String
    public var reasons: [String]
    /// The residues a refusal is about (1-based, inclusive), lit in the refused model.
    public var marked: [Range]
    public var motifs: [MotifAnswer]
    public var pieces: [PieceAnswer]
    public var residues: Int
    public var seed: UInt64
    public var sequence: String
    public var hydrogens: Bool
    public var secondaryStructure: String
    public var links: Links?
    public var milliseconds: Double?

    public init(_ design: Design, links: Links? = nil, milliseconds: Double? = nil) {
        let spec = design.spec, verdict = design.verdict
        name = spec.name
        valid = verdict.isValid
        message = verdict.message
        reasons = verdict.reasons
        marked = verdict.marked.map { Range(first: $0.lowerBound + 1, last: $0.upperBound) }
        motifs = verdict.motifs.map { m in
            MotifAnswer(name: m.name, pieces: m.pieces, example: m.example.map { Example(id: $0.id, note: $0.note) }, note: m.note)
        }
        pieces = zip(spec.pieces, design.pieceRanges).map { piece, range in
            PieceAnswer(kind: piece.kind.rawValue, name: piece.kind.displayName, length: piece.length,
                        first: range.lowerBound + 1, last: range.upperBound, color: piece.kind.color)
        }
        residues = spec.residueCount
        seed = spec.seed
        sequence = String(spec.sequence)
        hydrogens = spec.hydrogens
        secondaryStructure = String(design.secondaryStructure.map(\.letter))
        self.links = links
        self.milliseconds = milliseconds
    }
}
