import ArgumentParser
import Foundation
import Molecule

struct InteractionsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "interactions",
        abstract: "Print each ligand's binding site and the interactions that hold it (first model).",
        discussion: """
            Hydrogen bonds, salt bridges, π-stacking, cation–π, hydrophobic contacts, halogen bonds, \
            metal coordination and water bridges by PLIP's criteria (Salentin et al. 2015); the binding \
            site is every residue with an atom within --site-radius Å of the ligand. The JSON is what \
            GET /api/molecules/{id}/interactions sends. Without --ligand, also where protein chains \
            touch: each side's residues within --site-radius Å of the other, and the H-bonds and salt \
            bridges between them.
            """)

    @Argument(help: "The structure file.") var file: String
    @Option(help: "Only this ligand: a residue name (AP5) or chain:number (A:215).") var ligand: String?
    @Option(help: "Binding-site radius in Å.") var siteRadius: Float = InteractionCriteria.standard.siteRadius
    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        let structure = try readStructure(file)
        guard structure.firstModel?.atoms.isEmpty == false else { throw CLIError("\(file): no atoms") }
        guard siteRadius > 0, siteRadius <= 10 else { throw CLIError("--site-radius: give a distance from 0 to 10 Å") }
        var criteria = InteractionCriteria.standard
        criteria.siteRadius = siteRadius
        let sites = InteractionFinder.sites(in: structure, ligand: ligand, criteria: criteria)
        if let ligand, sites.isEmpty { throw CLIError("\(file): no ligand named \(ligand)") }
        let interfaces = ligand == nil ? ChainInterfaces.find(in: structure, criteria: criteria) : []
        let report = InteractionReport(structure, sites: sites, interfaces: interfaces, criteria: criteria)
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
            return
        }
        if report.sites.isEmpty { print("\(file): no ligands (every residue is a polymer's, water or a halide)") }
        for site in report.sites {
            let name = site.ligand.map { "\($0.residue) \($0.chain)\($0.number)" }.joined(separator: " + ")
            print("\(name)\(site.additive ? " (a common additive)" : ""): \(site.site.count) residues within \(siteRadius) Å, \(site.interactions.count) interactions")
            for entry in site.interactions { print("  \(entry.words)") }
        }
        for interface in report.interfaces {
            print("chains \(interface.chains.joined(separator: " and ")): \(interface.residues.map(\.count).map(String.init).joined(separator: " and ")) residues "
                  + "within \(siteRadius) Å of the other, \(interface.interactions.count) H-bonds and salt bridges")
            for entry in interface.interactions { print("  \(entry.words)") }
        }
    }
}
