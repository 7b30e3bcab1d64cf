import Foundation
import Testing
@testable import Molecule

/// What reading a file and finding its bonds may cost, whatever the file (issue 29, findings 1-2):
/// models and atoms per file are bounded with an error naming the limit and the line; the distance
/// search for bonds stays bounded on coordinates denser than any real matter.
@Suite("Budgets")
struct BudgetTests {
    static func xyz(frames: Int, atomsPerFrame: Int = 1) -> [UInt8] {
        var text = ""
        for _ in 0..<frames {
            text += "\(atomsPerFrame)\n\n"
            for k in 0..<atomsPerFrame { text += "H \(k) 0 0\n" }
        }
        return Array(text.utf8)
    }

    /// A cubic lattice of `n`³ atoms of `element`, `spacing` Å apart.
    static func lattice(_ n: Int, spacing: Double, element: String = "Fr", z: ((Int) -> Double)? = nil) -> [UInt8] {
        var text = "\(n * n * n)\nlattice\n"
        for i in 0..<n { for j in 0..<n { for k in 0..<n {
            text += "\(element) \(Double(i) * spacing) \(Double(j) * spacing) \(Double(k) * spacing)\n"
        } } }
        return Array(text.utf8)
    }

    func refusal(_ bytes: [UInt8], name: String, limits: ReadLimits = .standard) -> StructureReadError? {
        do { _ = try StructureReader.read(bytes: bytes, fileName: name, limits: limits); return nil } catch {
            return error as? StructureReadError
        }
    }

    @Test("an XYZ file of more frames than the limit is refused at the first frame past it, naming the limit")
    func tooManyFrames() throws {
        let e = try #require(refusal(Self.xyz(frames: 1_001), name: "frames.xyz"))
        #expect(e.isTooLarge)
        #expect(e.line == 3_001)
        #expect(e.description.contains("frame 1001"))
        #expect(e.description.contains("more than 1000 models"))
        let ok = try StructureReader.read(bytes: Self.xyz(frames: 1_000), fileName: "frames.xyz")
        #expect(ok.models.count == 1_000)
    }

    @Test("PDB models past the limit are refused at their MODEL line, also when ENDMDL leaves atoms outside models")
    func tooManyPDBModels() throws {
        let atom = "ATOM      1  CA  GLY A   1       0.000   0.000   0.000  1.00  0.00           C\n"
        let withModels = (1...4).map { "MODEL     \($0)\n\(atom)ENDMDL\n" }.joined()
        let e = try #require(refusal(Array(withModels.utf8), name: "nmr.pdb", limits: ReadLimits(maxModels: 3)))
        #expect(e.isTooLarge && e.line == 10 && e.field == "MODEL")
        let bare = Array(String(repeating: "\(atom)ENDMDL\n", count: 4).utf8)
        let f = try #require(refusal(bare, name: "bare.pdb", limits: ReadLimits(maxModels: 3)))
        #expect(f.isTooLarge && f.line == 7 && f.field == "ATOM")
    }

    @Test("atoms in all models together past the limit are refused, in every format")
    func tooManyAtoms() throws {
        let limits = ReadLimits(maxModels: 100, maxAtoms: 5)
        #expect(refusal(Self.xyz(frames: 2, atomsPerFrame: 3), name: "a.xyz", limits: limits)?.message.contains("more than 5 atoms") == true)
        let pdb = (1...6).map { String(format: "ATOM  %5d  CA  GLY A%4d       0.000   0.000   0.000  1.00  0.00           C\n", $0, $0) }.joined()
        let p = refusal(Array(pdb.utf8), name: "a.pdb", limits: limits)
        #expect(p?.isTooLarge == true && p?.line == 6)
        let cif = "data_x\nloop_\n_atom_site.group_PDB\n_atom_site.id\n_atom_site.label_atom_id\n_atom_site.label_comp_id\n_atom_site.label_asym_id\n"
            + "_atom_site.label_seq_id\n_atom_site.Cartn_x\n_atom_site.Cartn_y\n_atom_site.Cartn_z\n"
            + (1...6).map { "ATOM \($0) CA GLY A \($0) 0 0 0\n" }.joined()
        let c = refusal(Array(cif.utf8), name: "a.cif", limits: limits)
        #expect(c?.isTooLarge == true && c?.field == "_atom_site" && c?.message.contains("6 rows") == true)
        let sdf = (1...2).map { _ in "m\n  x\n\n  3  0  0  0  0  0  0  0  0  0999 V2000\n"
            + String(repeating: "    0.0000    0.0000    0.0000 C   0  0  0  0  0  0  0  0  0  0  0  0\n", count: 3) + "M  END\n$$$$\n" }.joined()
        #expect(refusal(Array(sdf.utf8), name: "a.sdf", limits: limits)?.isTooLarge == true)
    }

    @Test("a lattice denser than any matter gets no atom with more than twelve bonds, and in bounded time")
    func denseLattice() throws {
        for spacing in [1.15, 1.31, 1.6] {
            let s = try StructureReader.read(bytes: Self.lattice(30, spacing: spacing), fileName: "lattice.xyz")
            let model = try #require(s.firstModel)
            let clock = ContinuousClock()
            var bonds = BondList()
            let took = clock.measure { bonds = BondBuilder.bonds(of: model, in: s) }
            var perAtom = [Int](repeating: 0, count: model.atoms.count)
            for k in 0..<bonds.count { perAtom[Int(bonds.a[k])] += 1; perAtom[Int(bonds.b[k])] += 1 }
            #expect(perAtom.max() ?? 0 <= BondBuilder.maxSearchedBondsPerAtom, "spacing \(spacing)")
            #expect(bonds.count <= 6 * model.atoms.count)
            // Not a timing test: a guard against the quadratic search (minutes) coming back.
            #expect(took < .seconds(20), "spacing \(spacing): \(took)")
        }
    }

    @Test("a flat sheet of carbon (a box with no depth) gets its bonds under the density limit")
    func flatSheet() throws {
        // Graphene: 2.46 Å lattice with a two-atom basis, 1.42 Å bonds, every atom at z = 0.
        var lines: [String] = []
        for i in 0..<12 { for j in 0..<12 {
            let x = 2.46 * (Double(i) + 0.5 * Double(j)), y = 2.46 * 0.8660254 * Double(j)
            lines.append("C \(x) \(y) 0"); lines.append("C \(x + 1.23) \(y + 0.7101408) 0")
        } }
        let text = "\(lines.count)\nsheet\n" + lines.joined(separator: "\n") + "\n"
        let s = try StructureReader.read(bytes: Array(text.utf8), fileName: "sheet.xyz")
        let model = try #require(s.firstModel)
        let bonds = BondBuilder.bonds(of: model, in: s)
        var perAtom = [Int](repeating: 0, count: model.atoms.count)
        for k in 0..<bonds.count { perAtom[Int(bonds.a[k])] += 1; perAtom[Int(bonds.b[k])] += 1 }
        #expect(model.atoms.count == 288)
        #expect(perAtom.filter { $0 == 3 }.count > 200)
        #expect(perAtom.allSatisfy { (1...3).contains($0) })
    }
}
