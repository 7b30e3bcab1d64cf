import ArgumentParser
import Foundation
import Molecule

struct DSSPCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dssp",
        abstract: "Compute secondary structure with DSSP and print it per residue (first model)."
    )

    @Argument(help: "The structure file.") var file: String
    @Flag(help: "Print JSON: {\"residues\":[{chain, number, icode, name, ss}]}.") var json = false

    struct Row: Codable { var chain: String; var number: Int; var icode: String; var name: String; var ss: String }
    struct Output: Codable { var residues: [Row] }

    func run() throws {
        let structure = try readStructure(file)
        guard let model = structure.firstModel else { throw CLIError("\(file): \(structure.noAtomsMessage)") }
        let codes = model.computeSecondaryStructure()
        var rows: [Row] = []
        for chain in model.chains {
            for r in chain.residueRange where model.residues[r].kind == .aminoAcid {
                let res = model.residues[r]
                rows.append(Row(chain: chain.id, number: Int(res.number),
                                icode: res.insertionCode == 0 ? "" : String(UnicodeScalar(res.insertionCode)),
                                name: res.name, ss: String(codes[r].letter)))
            }
        }
        if json {
            print(String(decoding: try JSONEncoder().encode(Output(residues: rows)), as: UTF8.self))
        } else {
            var current = ""
            for chain in model.chains {
                current = chain.residueRange.filter { model.residues[$0].kind == .aminoAcid }.map { String(codes[$0].letter) }.joined()
                if !current.isEmpty { print("\(chain.id): \(current)") }
            }
        }
    }
}
