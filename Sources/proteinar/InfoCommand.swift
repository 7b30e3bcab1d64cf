import ArgumentParser
import Foundation
import Molecule

struct InfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Describe a structure file: metadata, chains, counts, secondary structure, ligands, assemblies.",
        discussion: "Reads PDB, mmCIF, BinaryCIF, SDF/MOL, MOL2, small-molecule CIF and XYZ, gzip-compressed or not; the format is recognised from the content. A PDB file of header records alone shows its metadata."
    )

    @Argument(help: "The structure file.") var file: String
    @Flag(help: "Print one JSON object (counts describe the first model, or the expanded assembly).") var json = false
    @Option(help: "Expand biological assembly N and describe it.") var assembly: String?
    @Flag(help: "Compute secondary structure with DSSP even when the file has HELIX/SHEET records.") var dssp = false

    func run() throws {
        var structure = try readStructure(file)
        if let assembly {
            do { structure = try structure.expandingAssembly(assembly) } catch {
                throw CLIError("\(file): \(error)")
            }
        }
        let summary = StructureSummary(structure, computeDSSP: dssp, assembly: assembly)
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            print(String(decoding: try encoder.encode(summary), as: UTF8.self))
        } else {
            print(Self.text(summary))
        }
    }

    static func text(_ s: StructureSummary) -> String {
        var out: [String] = []
        out.append([s.id, s.title].filter { !$0.isEmpty }.joined(separator: "  "))
        var line: [String] = []
        if !s.method.isEmpty { line.append("Method: \(s.method)") }
        if let r = s.resolution { line.append(String(format: "Resolution: %.2f Å", r)) }
        if !s.depositionDate.isEmpty { line.append("Deposited: \(s.depositionDate)") }
        if !s.classification.isEmpty { line.append("Class: \(s.classification)") }
        if !line.isEmpty { out.append(line.joined(separator: "   ")) }
        if !s.authors.isEmpty { out.append("Authors: \(s.authors.joined(separator: ", "))") }
        if !s.organisms.isEmpty { out.append("Organism: \(s.organisms.joined(separator: "; "))") }
        if let c = s.cell {
            out.append(String(format: "Cell: %.3f %.3f %.3f Å  %.2f %.2f %.2f°", c.a, c.b, c.c, c.alpha, c.beta, c.gamma)
                       + (s.spaceGroup.map { "   Space group: \($0)" } ?? ""))
        }
        out.append("Format: \(s.format)   Models: \(s.models)" + (s.assembly.map { "   Assembly: \($0)" } ?? ""))
        if s.models == 0 { out.append("No atoms: the file holds only its header.") }
        out.append("Atoms: \(s.atoms)   Residues: \(s.residues)   Chains: \(s.chains.count)   Bonds: \(s.bonds)")
        if !s.chains.isEmpty {
            out.append("Chains:")
            for c in s.chains.prefix(60) {
                let seq = c.sequence.count > 60 ? String(c.sequence.prefix(57)) + "..." : c.sequence
                out.append("  \(c.id.padding(toLength: 4, withPad: " ", startingAt: 0)) \(String(c.residues).leftPad(5)) residues  \(c.type.padding(toLength: 11, withPad: " ", startingAt: 0)) \(seq)")
            }
            if s.chains.count > 60 { out.append("  … and \(s.chains.count - 60) more chains") }
        }
        if !s.secondaryStructure.isEmpty {
            let order = ["H", "G", "I", "E", "B", "T", "S", "P", "-"]
            let parts = order.compactMap { k in s.secondaryStructure[k].map { "\(k == "-" ? "coil" : k) \($0)" } }
            out.append("Secondary structure (\(s.secondaryStructureSource == "file" ? "from the file" : "DSSP")): \(parts.joined(separator: "  "))")
        }
        if !s.ligands.isEmpty {
            out.append("Ligands: " + s.ligands.map { $0.count > 1 ? "\($0.name) ×\($0.count)" : $0.name }.joined(separator: ", "))
        }
        if !s.assemblies.isEmpty {
            out.append("Assemblies: " + s.assemblies.map { "\($0.id) (\($0.chains) chains)" }.joined(separator: ", "))
        }
        return out.joined(separator: "\n")
    }
}

extension String {
    func leftPad(_ n: Int) -> String { count >= n ? self : String(repeating: " ", count: n - count) + self }
}

/// Reads a structure file, turning read errors into a clean message and exit status.
func readStructure(_ path: String) throws -> Structure {
    do { return try StructureReader.read(contentsOf: path) } catch let e as StructureReadError {
        throw CLIError(e.description)
    }
}

struct CLIError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}
