import ArgumentParser
import Foundation
import Molecule
import MoleculeLibrary
import ProteinDesign
import SceneExport

struct DesignCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "design",
        abstract: "Design a protein from helix, strand and coil pieces: build it with ideal geometry and say whether it holds together.",
        discussion: """
            Pieces in order, each with an optional length: helix:14,coil:4,helix:14. Names: helix, strand (or sheet), \
            coil (flexible), rigid-coil (polyproline II). The output's extension picks the format: .pdb, .cif, or a \
            cartoon model (.usdz, .glb, .obj, .stl, .dae, .ply).
            """,
        aliases: ["build"])

    @Argument(help: "The pieces, e.g. helix:14,coil:4,helix:14.") var pieces: String
    @Option(help: "One-letter sequence for the whole chain (default: a composition suited to each piece).") var sequence: String?
    @Option(help: "Seed for the flexible coils; the same seed builds the same design.") var seed: UInt64 = 1
    @Flag(help: "Add hydrogens to the written design (the verdict does not depend on them).") var hydrogens = false
    @Option(name: .shortAndLong, help: "Write the design: .pdb, .cif, .usdz, .glb, .obj, .stl, .dae or .ply.") var output: String?
    @Flag(help: "Print the verdict as JSON.") var json = false

    func run() throws {
        var spec: DesignSpec
        do { spec = try DesignSpec(parsing: pieces, sequence: sequence, seed: seed) } catch { throw CLIError(error.message) }
        spec.hydrogens = hydrogens
        if let output { try checkWritable(output) }
        let started = Date()
        let design = ProteinDesigner.build(spec)
        let buildSeconds = Date().timeIntervalSince(started)
        if let output { try write(design, to: output) }
        let verdict = design.verdict
        if json {
            // The same answer as POST /api/designs (without the links: no server), with the time it took.
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(DesignAnswer(design, milliseconds: buildSeconds * 1000)), as: UTF8.self))
            return
        }
        print(verdict.message + (verdict.isValid ? "." : ":"))
        for reason in verdict.reasons { print("  - \(reason)") }
        if !verdict.marked.isEmpty {
            print("  residues the refusal is about: " + verdict.marked.map { $0.count == 1 ? "\($0.lowerBound + 1)" : "\($0.lowerBound + 1)–\($0.upperBound)" }.joined(separator: ", "))
        }
        for motif in verdict.motifs {
            print("  motif: \(motif.name) (pieces \(motif.pieces.map(String.init).joined(separator: ", ")))" + (motif.note.map { ": \($0)" } ?? ""))
        }
        print("\(spec.residueCount) residues, built and checked in \(String(format: "%.1f", buildSeconds * 1000)) ms")
        print("sequence  \(String(spec.sequence))")
        print("DSSP      \(String(design.secondaryStructure.map(\.letter)))")
    }

    func write(_ design: Design, to output: String) throws {
        let ext = (output as NSString).pathExtension.lowercased()
        let bytes: [UInt8]
        switch ext {
        case "pdb": bytes = StructureWriter.pdb(design.structure)
        case "cif": bytes = StructureWriter.mmCIF(design.structure)
        default:
            guard let format = ModelFormat(rawValue: ext), format != .mtl else {
                throw CLIError("\(output): unknown output format '\(ext)'; accepted: pdb, cif, usdz, glb, obj, stl, dae, ply")
            }
            bytes = try LibraryService.encode(design, as: ModelRequest(format: format))
        }
        try writeFile(bytes, to: output)
        FileHandle.standardError.write(Data("wrote \(output) (\(bytes.count) bytes)\n".utf8))
    }
}
