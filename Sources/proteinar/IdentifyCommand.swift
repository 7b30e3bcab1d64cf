import ArgumentParser
import Foundation
import Molecule
import MoleculeLibrary

struct IdentifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "identify",
        abstract: "Print what a tap on a model of the file names: its first model's atoms and residues as JSON.",
        discussion: """
            The same table as GET /api/molecules/{id}/identify.json: the feature ids of a GLB made with \
            `convert --glb meshopt` or `--glb float` are indices into its atoms.
            """)

    @Argument(help: "The structure file.") var file: String

    func run() throws {
        print(String(decoding: try LibraryService.identifyTable(try readStructure(file)), as: UTF8.self))
    }
}
