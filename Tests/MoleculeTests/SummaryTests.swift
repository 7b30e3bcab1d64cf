import Foundation
import Testing
@testable import Molecule

/// The counts a person reads (issue 30, point 6): amino acids apart from ligands and waters, and
/// ligands with their names.
@Suite("Summary counts")
struct SummaryTests {
    @Test("1AKE: 214 amino acids a chain, waters and the two AP5 apart, AP5 named from _chem_comp")
    func adenylateKinase() throws {
        let s = try Fixtures.read("mmcif_1ake_chimerax.cif")
        let summary = StructureSummary(s, countBonds: false)
        let a = try #require(summary.chains.first { $0.id == "A" && $0.type == "protein" })
        #expect(a.monomers == 214 && a.sequence.count == 214)
        #expect(summary.residues > 428 + 2, "residues count waters and ligands too")
        let ap5 = try #require(summary.ligands.first { $0.name == "AP5" })
        #expect(ap5.count == 2 && ap5.fullName == "BIS(ADENOSINE)-5'-PENTAPHOSPHATE")
        let waters = try #require(summary.waters)
        #expect(waters > 0 && summary.residues == 428 + 2 + waters)
    }

    @Test("PDB HETNAM records name ligands, continued lines joined")
    func hetnam() throws {
        let text = """
            HETNAM     AP5 BIS(ADENOSINE)-5'-
            HETNAM   2 AP5  PENTAPHOSPHATE
            HETNAM     HEM PROTOPORPHYRIN IX CONTAINING FE
            HETATM    1  PA  AP5 A 215       0.000   0.000   0.000  1.00  0.00           P
            HETATM    2 FE   HEM A 216       5.000   0.000   0.000  1.00  0.00          FE
            """
        let s = try StructureReader.read(bytes: Array(text.utf8), fileName: "hetnam.pdb")
        #expect(s.metadata.componentNames["AP5"] == "BIS(ADENOSINE)-5'-PENTAPHOSPHATE")
        #expect(s.metadata.componentNames["HEM"] == "PROTOPORPHYRIN IX CONTAINING FE")
        let summary = StructureSummary(s, countBonds: false)
        #expect(summary.ligands.map(\.fullName) == ["BIS(ADENOSINE)-5'-PENTAPHOSPHATE", "PROTOPORPHYRIN IX CONTAINING FE"])
    }
}
