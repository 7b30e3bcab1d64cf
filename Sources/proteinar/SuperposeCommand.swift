import ArgumentParser
import Foundation
import Molecule

struct SuperposeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "superpose",
        abstract: "Superpose structure A on structure B by their Cα (as matchmaker and TM-align do) and report the fit.",
        discussion: """
            Pairs the residues of a chain of A with a chain of B by sequence (BLOSUM62 alignment), or by \
            structure when the sequence identity is below 40 % (a TM-align-like refinement), fits them by \
            Kabsch with matchmaker's pruning (pairs beyond 2.0 Å dropped, at least half kept) and gives the \
            RMSD, the TM-score normalised by B and the motion of A onto B. Without --chain-a/--chain-b the \
            chain pair whose sequences align best is taken. docs/formats.md, "Two structures compared".
            """
    )

    @Argument(help: "The structure to move (A).") var fileA: String
    @Argument(help: "The structure it is moved onto (B, the reference: TM-score is normalised by its length).") var fileB: String
    @Option(name: .customLong("chain-a"), help: "A's chain (author id); default: the best-matching pair.") var chainA: String?
    @Option(name: .customLong("chain-b"), help: "B's chain (author id); default: the best-matching pair.") var chainB: String?
    @Option(name: .customLong("model-a"), help: "A's model number (NMR ensembles); default: the first model.") var modelA: Int?
    @Option(name: .customLong("model-b"), help: "B's model number; default: the first model.") var modelB: Int?
    @Option(help: "How residues are paired: auto (by sequence, by structure below 40 % identity), sequence or structure.")
    var pairing: String = "auto"
    @Flag(help: "Print one JSON object, with every aligned pair.") var json = false
    @Option(name: [.short, .long], help: "Write A moved onto B (all models) as PDB (.pdb) or mmCIF (.cif).") var output: String?

    func run() throws {
        guard let mode = Superposition.Pairing(rawValue: pairing.lowercased()) else {
            throw CLIError("--pairing: '\(pairing)' is not one of auto, sequence, structure")
        }
        var format: String?
        if let output {
            format = (output as NSString).pathExtension.lowercased()
            guard format == "pdb" || format == "cif" else {
                throw CLIError("\(output): unknown output format '\(format ?? "")'; accepted: pdb, cif")
            }
        }
        let a = try readStructure(fileA), b = try readStructure(fileB)
        let options = Superposition.Options(chainA: chainA, chainB: chainB, modelA: modelA, modelB: modelB, pairing: mode)
        let result: SuperpositionResult
        do { result = try Superposition.superpose(a, onto: b, options: options) } catch {
            throw CLIError("superpose \(fileA) onto \(fileB): \(error)")
        }
        if let output, let format {
            let moved = a.transformed(by: result.transform)
            try writeFile(format == "pdb" ? StructureWriter.pdb(moved) : StructureWriter.mmCIF(moved), to: output)
            FileHandle.standardError.write(Data("wrote \(output): \(fileA) moved onto \(fileB)\n".utf8))
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            print(String(decoding: try encoder.encode(Answer(result, fileA: fileA, fileB: fileB, options: options)), as: UTF8.self))
        } else {
            print(Self.text(result, fileA: fileA, fileB: fileB))
        }
    }

    static func text(_ r: SuperpositionResult, fileA: String, fileB: String) -> String {
        func f(_ x: Double, _ digits: Int = 3) -> String { String(format: "%.\(digits)f", x) }
        func row(_ v: SIMD3<Double>, _ t: Double) -> String {
            "  [" + [v.x, v.y, v.z].map { String(format: "%9.5f", $0) }.joined(separator: " ") + "]  " + String(format: "%10.4f", t)
        }
        func chain(_ id: String) -> String { id.isEmpty ? "(no id)" : id }
        let bySequence = "the sequence alignment: \(r.sequenceAlignmentLength) pairs, \(f(100 * r.sequenceAlignmentIdentity, 1)) % identical"
        let pairing = r.pairing == .sequence ? "by sequence (\(bySequence))" : "by structure, TM-align-like (\(bySequence))"
        var out = [
            "A: \(fileA) chain \(chain(r.chainA)) (\(r.lengthA) residues)  onto  B: \(fileB) chain \(chain(r.chainB)) (\(r.lengthB) residues)",
            "Paired \(pairing): \(r.alignedLength) aligned residues, sequence identity \(f(100 * r.sequenceIdentity, 1)) %",
            "RMSD \(f(r.rmsd)) Å over \(r.keptLength) pairs kept after pruning (\(r.cycles) cycles, 2.0 Å cutoff);"
                + " \(f(r.rmsdAll)) Å over all \(r.alignedLength) pairs (\(f(r.rmsdAllFitted)) Å at their own best fit)",
            "TM-score \(f(r.tmScore, 4)) (normalised by B's \(r.lengthB) residues)",
            "Transform of A onto B, x' = R·x + t (rotation \(f(r.transform.rotationAngleDegrees, 1))°):",
            "        R                                 t",
        ]
        let t = r.transform
        out += [row(t.rows.0, t.translation.x), row(t.rows.1, t.translation.y), row(t.rows.2, t.translation.z)]
        return out.joined(separator: "\n")
    }

    /// The JSON answer (`--json`).
    struct Answer: Encodable {
        struct Side: Encodable { var file: String; var chain: String; var model: Int?; var length: Int }
        struct Residue: Encodable { var chain: String; var number: Int; var icode: String; var name: String }
        struct Pair: Encodable { var a: Residue; var b: Residue; var distance: Double; var kept: Bool }
        var a: Side
        var b: Side
        var pairing: String
        var alignedLength: Int
        var keptLength: Int
        var rmsd: Double
        var rmsdAll: Double
        var rmsdAllFitted: Double
        var cycles: Int
        var cutoff: Double
        var sequenceIdentity: Double
        var sequenceAlignmentIdentity: Double
        var sequenceAlignmentLength: Int
        var sequenceAlignmentScore: Double
        var tmScore: Double
        var rotation: [[Double]]
        var translation: [Double]
        var matrix: [[Double]]
        var tmRotation: [[Double]]
        var tmTranslation: [Double]
        var pairs: [Pair]

        init(_ r: SuperpositionResult, fileA: String, fileB: String, options: Superposition.Options) {
            func residue(_ x: CalphaTrace.Residue, _ chain: String) -> Residue {
                Residue(chain: chain, number: Int(x.number), icode: x.insertionCode == 0 ? "" : String(UnicodeScalar(x.insertionCode)),
                        name: x.name)
            }
            a = Side(file: fileA, chain: r.chainA, model: options.modelA, length: r.lengthA)
            b = Side(file: fileB, chain: r.chainB, model: options.modelB, length: r.lengthB)
            pairing = r.pairing.rawValue
            alignedLength = r.alignedLength; keptLength = r.keptLength
            rmsd = r.rmsd; rmsdAll = r.rmsdAll; rmsdAllFitted = r.rmsdAllFitted; cycles = r.cycles
            cutoff = options.pruning.cutoff
            sequenceIdentity = r.sequenceIdentity; sequenceAlignmentIdentity = r.sequenceAlignmentIdentity
            sequenceAlignmentLength = r.sequenceAlignmentLength
            sequenceAlignmentScore = r.sequenceAlignmentScore
            tmScore = r.tmScore
            rotation = r.transform.rotation; translation = [r.transform.translation.x, r.transform.translation.y, r.transform.translation.z]
            matrix = r.transform.matrix4x4
            tmRotation = r.tmTransform.rotation
            tmTranslation = [r.tmTransform.translation.x, r.tmTransform.translation.y, r.tmTransform.translation.z]
            pairs = r.pairs.map { Pair(a: residue($0.a, r.chainA), b: residue($0.b, r.chainB), distance: $0.distance, kept: $0.kept) }
        }
    }
}
