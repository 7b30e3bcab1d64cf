import Foundation
import Testing
@testable import Molecule

/// PDB files from outside the archive: header records alone, MD tools' residue numbers past 9999,
/// a file of water alone (fixtures in Tests/MoleculeTests/Fixtures).
@Suite("PDB files from other programs")
struct PDBEdgeCaseTests {
    static func read(_ name: String) throws -> Structure {
        try StructureReader.read(contentsOf: Fixtures.moleculeFixtures.appendingPathComponent(name).path)
    }

    @Test("names written from column 13 without elements (CHARMM, MDAnalysis): an amino acid's CA is carbon, an ion's is calcium")
    func leftAlignedNames() throws {
        let text = [
            "ATOM      1 N    MET     1     -11.921  26.307  10.410  1.00 38.38      4AKE",
            "ATOM      2 CA   MET     1     -11.110  26.621  11.572  1.00 40.67      4AKE",
            "ATOM      3 HT1  MET     1     -11.447  26.741   9.595  1.00  0.00      4AKE",
            "HETATM    4 CA    CA     2       0.000   0.000   0.000  1.00  0.00",
        ].joined(separator: "\n") + "\nEND\n"
        let model = try #require(try StructureReader.read(bytes: Array(text.utf8), fileName: "charmm.pdb").models.first)
        #expect(model.atoms.elements.map(\.symbol) == ["N", "C", "H", "Ca"])
        // The adenylate kinase files MDAnalysis writes so: every CA a carbon, as gemmi reads them.
        let adk = try #require(try Fixtures.read("adk_open.pdb").models.first)
        let alphas = (0..<adk.atoms.count).filter { adk.atoms.names[$0] == "CA" }
        #expect(alphas.count == 214 && alphas.allSatisfy { adk.atoms.elements[$0] == .carbon })
    }

    @Test("a header without coordinates is its metadata and no model")
    func headerOnly() throws {
        let s = try Self.read("header_only.pdb")
        #expect(s.models.isEmpty)
        #expect(s.metadata.id == "1A8O")
        #expect(s.metadata.title == "A HEADER WITHOUT COORDINATES: HIV-1 CAPSID C-TERMINAL DOMAIN")
        #expect(s.metadata.resolution == 1.7)
        #expect(s.metadata.cell == UnitCell(a: 41.98, b: 41.98, c: 88.92))
        #expect(s.metadata.spaceGroup == "P 43 21 2")
        #expect(s.noAtomsMessage == "this file has no atoms: only its header (title 'A HEADER WITHOUT COORDINATES: HIV-1 CAPSID C-TERMINAL DOMAIN')")
        let summary = StructureSummary(s)
        #expect(summary.atoms == 0 && summary.models == 0 && summary.id == "1A8O")
        #expect(summary.cell?.c == 88.92)
        exerciseEngine(s)
    }

    @Test("residue numbers past 9999 in columns 23-27 read whole (as GROMACS and VMD read them)")
    func fiveDigitResidueNumbers() throws {
        let m = try #require(try Self.read("five_digit_residues.pdb").firstModel)
        #expect(m.residues.map(\.number) == [9999, 10000, 10001, 10002])
        #expect(m.residues.allSatisfy { $0.insertionCode == 0 && $0.atomCount == 3 })
        #expect(m.atoms.positions[3] == SIMD3(4, 5, 3))
        // A letter in column 27 is still an insertion code.
        let line = "ATOM      1  N   ALA A1000A      1.000   2.000   3.000  1.00  0.00           N\n"
        let r = try #require(try StructureReader.read(bytes: Array(line.utf8), fileName: "icode.pdb").firstModel?.residues.first)
        #expect(r.number == 1000 && r.insertionCode == UInt8(ascii: "A"))
    }

    @Test("numbers that wrap at 9999 to 0 stay separate residues")
    func wrappedResidueNumbers() throws {
        let m = try #require(try Self.read("gromacs_wrapped_residues.pdb").firstModel)
        #expect(m.residues.map(\.number) == [9998, 9999, 0, 1, 9999, 0])
        #expect(m.residues.allSatisfy { $0.atomCount == 3 && $0.isWater })
        #expect(m.chains.count == 1)
    }

    @Test func waterOnly() throws {
        let s = try Self.read("water_only.pdb")
        #expect(s.firstModel?.atoms.count == 3)
        #expect(StructureSummary(s).waters == 3)
    }
}
