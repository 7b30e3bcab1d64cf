import Molecule

extension DesignSpec {
    /// The design's pieces as text (`helix:14,coil:4,helix:14`), which parses back to the same pieces.
    public var piecesText: String { pieces.map { "\($0.kind.rawValue):\($0.length)" }.joined(separator: ",") }
}

/// A built design: the structure (a normal `Structure`, written, rendered and exported like any
/// other), what DSSP finds in it, and the verdict.
public struct Design: Sendable {
    public var spec: DesignSpec
    public var structure: Structure
    public var verdict: Verdict
    /// One DSSP code per residue, from the engine's own DSSP.
    public var secondaryStructure: [SecondaryStructureCode]
    /// The residues (0-based) of each piece.
    public var pieceRanges: [Range<Int>]
}

/// Whether the design holds together, and why.
public struct Verdict: Sendable, Equatable {
    public var isValid: Bool
    /// "Congratulations, you have created a new protein made of …" or "Sorry, this combination cannot be made".
    public var message: String
    /// Why it cannot be made: which pieces clash, which coil is too short to turn, ….
    public var reasons: [String]
    public var motifs: [Motif]
    /// The residues a refusal is about (0-based, in chain order, sorted and apart): the pieces that
    /// clash, the strands with no partner, the coil too short to turn. Empty for a valid design.
    public var marked: [Range<Int>] = []

    /// The marked residues as a selection of chain A (residue numbers from 1), e.g. `A:3-9,A:20-22`,
    /// for a model that lights them and dims the rest; nil when nothing is marked.
    public var markedSelection: String? {
        marked.isEmpty ? nil : marked.map { "A:\($0.lowerBound + 1)-\($0.upperBound)" }.joined(separator: ",")
    }

    /// Ranges sorted, and those that overlap or touch joined.
    static func merged(_ ranges: [Range<Int>]) -> [Range<Int>] {
        var out: [Range<Int>] = []
        for r in ranges.filter({ !$0.isEmpty }).sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = out.last, r.lowerBound <= last.upperBound {
                out[out.count - 1] = last.lowerBound..<max(last.upperBound, r.upperBound)
            } else {
                out.append(r)
            }
        }
        return out
    }
}

/// A super-secondary motif the design contains, with a real protein that has one where the library holds it.
public struct Motif: Sendable, Equatable {
    public var name: String
    /// 1-based piece numbers.
    public var pieces: [Int]
    public var example: MotifExample?
    /// What is worth knowing about this one (a β-α-β unit's handedness), or nil.
    public var note: String?

    /// The ids of the proteins that examples point at, to look up in a library.
    public static var exampleIDs: Set<String> { Set(examples.values.map(\.id)) }

    static let examples: [String: MotifExample] = [
        "helix-turn-helix": MotifExample(id: "1LCD", note: "the lac repressor's headpiece reads its operator DNA with a helix-turn-helix"),
        "β-hairpin": MotifExample(id: "1UBI", note: "ubiquitin's first two strands form a β-hairpin"),
        "β-α-β": MotifExample(id: "1AKE", note: "adenylate kinase's core sheet is built from right-handed β-α-β units"),
        "helical hairpin": MotifExample(id: "2XHE", note: "syntaxin's Habc domain, held here by Unc18, is a bundle of helices joined by hairpin turns"),
        "β-meander": MotifExample(id: "3KPR", note: "the floor of HLA's peptide-binding groove is a sheet of strands joined in order, up and down"),
        "Greek key": MotifExample(id: "3KPR", note: "the T-cell receptor's and β2-microglobulin's immunoglobulin domains fold their strands as Greek keys"),
    ]
}

public struct MotifExample: Sendable, Equatable {
    public var id: String
    public var note: String
}
