import Foundation
import Testing
@testable import Molecule

@Suite("Writers: reading what we wrote gives back the same atoms")
struct WriterTests {
    static func expectSameAtoms(_ a: Structure, _ b: Structure, tolerance: Float = 0.0006) {
        #expect(a.models.count == b.models.count)
        for (ma, mb) in zip(a.models, b.models) {
            #expect(ma.atoms.count == mb.atoms.count)
            guard ma.atoms.count == mb.atoms.count else { return }
            #expect(ma.atoms.names == mb.atoms.names)
            #expect(ma.atoms.elements == mb.atoms.elements)
            #expect(ma.atoms.serials == mb.atoms.serials)
            #expect(ma.atoms.altLocs == mb.atoms.altLocs)
            #expect(ma.atoms.formalCharges == mb.atoms.formalCharges)
            #expect(ma.atoms.isHetero == mb.atoms.isHetero)
            #expect(zip(ma.atoms.occupancies, mb.atoms.occupancies).allSatisfy { abs($0 - $1) < 0.006 })
            #expect(zip(ma.atoms.bFactors, mb.atoms.bFactors).allSatisfy { abs($0 - $1) < 0.006 })
            // Files hold three decimals: each coordinate may move by half a thousandth.
            let worst = zip(ma.atoms.positions, mb.atoms.positions).map { p in let d = p.0 - p.1; return max(abs(d.x), abs(d.y), abs(d.z)) }.max() ?? Float(0)
            #expect(worst <= tolerance)
            #expect(ma.residues.map(\.name) == mb.residues.map(\.name))
            #expect(ma.residues.map(\.number) == mb.residues.map(\.number))
            #expect(ma.residues.map(\.insertionCode) == mb.residues.map(\.insertionCode))
            #expect(ma.chains.map(\.id) == mb.chains.map(\.id))
        }
    }

    static let files = ["pdb1ejg.pdb", "1LCD.pdb", "2XHE.cif", "3KPR.cif.gz", "6wg6.bcif.gz", "pdb4v8r_h36.pdb", "nmr_neopetrosiamide.pdb", "mmcif_7cth.cif"]

    @Test("PDB round trip", arguments: files)
    func pdbRoundTrip(file: String) throws {
        let s = try Fixtures.read(file)
        let text = PDBWriter.writeBytes(s)
        let back = try StructureReader.read(bytes: text, fileName: "roundtrip.pdb")
        #expect(back.sourceFormat == .pdb)
        Self.expectSameAtoms(s, back)
    }

    @Test("a PDB title is ASCII: Greek letters spelled, accents and typographic marks plain, other scripts transliterated, one ? per character left")
    func asciiTitle() throws {
        var s = try Fixtures.read("1LCD.pdb")
        s.metadata.title = "β-lactamase with bis(adenosine)-5′-pentaphosphate, “naïve” Ångström – 漢 🧬"
        let text = String(decoding: PDBWriter.writeBytes(s), as: UTF8.self)
        let title = text.split(separator: "\n").filter { $0.hasPrefix("TITLE") }.map { $0.dropFirst(10).trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
        #expect(title == "BETA-lactamase with bis(adenosine)-5'-pentaphosphate, \"naive\" Angstrom - han ?", "\(title)")
        #expect(text.utf8.allSatisfy { $0 < 0x80 })
    }

    @Test("mmCIF round trip", arguments: files)
    func mmcifRoundTrip(file: String) throws {
        let s = try Fixtures.read(file)
        let text = MMCIFWriter.writeBytes(s)
        let back = try StructureReader.read(bytes: text, fileName: "roundtrip.cif")
        #expect(back.sourceFormat == .mmcif)
        Self.expectSameAtoms(s, back)
        #expect(back.metadata.title == s.metadata.title)
    }
}
