import Foundation
import Testing
@testable import Molecule

/// Every malformed input gets a `StructureReadError` naming the file and the line (or byte offset).
@Suite("Bad input")
struct BadInputTests {
    static func error(_ text: String, name: String = "bad.txt") -> StructureReadError? {
        error(Array(text.utf8), name: name)
    }

    static func error(_ bytes: [UInt8], name: String = "bad.bin") -> StructureReadError? {
        do { _ = try StructureReader.read(bytes: bytes, fileName: name); return nil } catch let e as StructureReadError { return e } catch {
            Issue.record("unexpected error type \(type(of: error)): \(error)"); return nil
        }
    }

    @Test func emptyFile() {
        let e = Self.error([], name: "empty.pdb")
        #expect(e?.file == "empty.pdb")
        #expect(e?.message.contains("empty") == true)
    }

    @Test func binaryGarbage() {
        var rng = SeededGenerator(seed: 7)
        let bytes = (0..<4096).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        let e = Self.error(bytes, name: "noise.bin")
        #expect(e != nil)
        #expect(e?.description.hasPrefix("noise.bin") == true)
    }

    @Test func wrongFormat() {
        let e = Self.error("Hello, this is a letter, not a structure.\nRegards\n", name: "letter.txt")
        #expect(e?.message.contains("not a recognised structure format") == true)
    }

    @Test func truncatedPDBAtom() throws {
        let e = Self.error("HEADER    TEST\nATOM      1  N   MET A   1      -8.164 -17.1\n", name: "cut.pdb")
        #expect(e?.line == 2)
        #expect(e?.field?.contains("ATOM") == true)
    }

    @Test func pdbCoordinateNotANumber() throws {
        let e = Self.error("ATOM      1  N   MET A   1      -8.164 -1x.168   4.248  1.00 40.83           N\n", name: "x.pdb")
        #expect(e?.line == 1)
        #expect(e?.field == "y (columns 39-46)")
    }

    @Test func pdbNumbersOutOfRange() throws {
        let e = Self.error("ATOM      1  N   MET A   1      -8.164 -17.168 9e99999  1.00 40.83           N\n", name: "x.pdb")
        #expect(e?.line == 1)
        #expect(e?.field?.contains("z") == true)
    }

    /// A header and no coordinates reads as its metadata without a model (`info` shows it).
    @Test func pdbWithoutAtoms() throws {
        let s = try StructureReader.read(bytes: Array("HEADER    NOTHING HERE\nREMARK   2 RESOLUTION.    2.00 ANGSTROMS.\nEND\n".utf8),
                                         fileName: "noatoms.pdb")
        #expect(s.models.isEmpty)
        #expect(s.metadata.resolution == 2.0)
        #expect(s.noAtomsMessage == "this file has no atoms: only its header")
    }

    @Test func truncatedPDBFile() throws {
        let full = try Fixtures.bytes("pdb1ubi.pdb")
        // Cut in the middle of an ATOM line.
        let text = String(decoding: full, as: UTF8.self)
        let cut = try #require(text.range(of: "ATOM    100")).upperBound
        let e = Self.error(String(text[..<cut]), name: "cut.pdb")
        #expect(e != nil)
        #expect(e?.line != nil)
    }

    @Test func unterminatedCIFTextField() {
        let e = Self.error("data_x\n_struct.title\n;A title that never\nends\n", name: "open.cif")
        #expect(e?.line == 3)
        #expect(e?.message.contains("never closed") == true)
    }

    @Test func truncatedCIFLoop() throws {
        let full = String(decoding: try Fixtures.bytes("1A8O.cif"), as: UTF8.self)
        let cut = full.index(full.startIndex, offsetBy: full.utf8.count * 2 / 3)
        let e = Self.error(String(full[..<cut]), name: "cut.cif")
        #expect(e != nil)
        #expect(e?.line != nil)
    }

    @Test func cifCoordinateNotANumber() {
        let text = """
        data_t
        loop_
        _atom_site.group_PDB
        _atom_site.id
        _atom_site.type_symbol
        _atom_site.label_atom_id
        _atom_site.label_comp_id
        _atom_site.label_asym_id
        _atom_site.label_seq_id
        _atom_site.Cartn_x
        _atom_site.Cartn_y
        _atom_site.Cartn_z
        ATOM 1 N N MET A 1 1.0 2.0 3.0
        ATOM 2 C CA MET A 1 1.5 abc 3.0

        """
        let e = Self.error(text, name: "nan.cif")
        #expect(e?.field == "_atom_site.Cartn_y")
        #expect(e?.line == 14)
    }

    @Test func cifQuotedStringNotClosed() {
        let e = Self.error("data_x\n_struct.title 'no end\n", name: "q.cif")
        #expect(e?.line == 2)
    }

    @Test func cifWithoutCoordinates() {
        let e = Self.error("data_x\n_struct.title 'just a title'\n", name: "t.cif")
        #expect(e != nil)
    }

    @Test func nonUTF8Bytes() {
        var bytes = Array("HEADER    TEST\nATOM      1  N   MET A   1      -8.164 -17.168   4.248  1.00 40.83           N\n".utf8)
        bytes[20] = 0xFF
        let e = Self.error(bytes, name: "latin.pdb")
        #expect(e?.line == 2)
        #expect(e?.message.contains("UTF-8") == true)
    }

    @Test func damagedGzip() throws {
        let gz = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Fixtures.path("3KPR.pdb.gz"))))
        let e = Self.error(Array(gz.prefix(gz.count / 2)), name: "cut.pdb.gz")
        #expect(e?.message.contains("gzip") == true)
    }

    @Test func truncatedBinaryCIF() throws {
        let b = try Fixtures.bytes("3jqh.bcif.gz")
        let e = Self.error(Array(b.prefix(b.count / 3)), name: "cut.bcif")
        #expect(e?.byteOffset != nil)
    }

    /// Whether the error says where: a line, a byte offset, or the record or category concerned.
    static func saysWhere(_ e: StructureReadError) -> Bool { e.line != nil || e.byteOffset != nil || e.field != nil }

    @Test("every file cut at many places fails with an error that says where, or reads as the start of the whole",
          arguments: ["1A8O.pdb", "1A8O.cif", "3jqh.bcif.gz", "first_200.props.sdf", "benzene.xyz", "ATP.cif"])
    func truncations(file: String) throws {
        let full = try Fixtures.bytes(file)
        let whole = try StructureReader.read(bytes: full, fileName: file)
        let wholeModel = try #require(whole.models.first)
        var errors = 0, cuts = 0
        for k in stride(from: 0, to: full.count, by: max(1, full.count / 97)) {
            cuts += 1
            let s: Structure
            do {
                s = try StructureReader.read(bytes: Array(full.prefix(k)), fileName: file)
            } catch let e as StructureReadError {
                errors += 1
                #expect(e.file == file && !e.message.isEmpty, "cut at \(k): \(e)")
                // Only the empty file has nowhere to point.
                #expect(Self.saysWhere(e) || (k == 0 && e.message.contains("empty")), "cut at \(k): says not where: \(e)")
                continue
            }
            // Read: what it has is the whole file's beginning, atoms in their places.
            #expect(s.models.count <= whole.models.count, "cut at \(k)")
            if let model = s.models.first {
                let n = model.atoms.count
                #expect(n <= wholeModel.atoms.count, "cut at \(k)")
                #expect(Array(model.atoms.positions.prefix(n)) == Array(wholeModel.atoms.positions.prefix(n)), "cut at \(k)")
            }
            exerciseEngine(s)
        }
        #expect(cuts >= 97)
        #expect(errors > 0, "no cut of \(file) was refused")
        #expect(errors < cuts || file.contains("bcif"), "every cut of \(file) was refused")
    }

    /// Inputs that once crashed a reader (found by `scripts/tools/fuzz`) must now only fail cleanly: a
    /// `StructureReadError` naming the file and the place, or a structure the engine can work on.
    @Test func fuzzRegressions() throws {
        let dir = Fixtures.root.appendingPathComponent("fuzz-crashes")
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { !$0.hasPrefix(".") && $0 != "README.md" }.sorted()
        #expect(files.count >= 2, "the inputs kept in Tests/Fixtures/fuzz-crashes: \(files)")
        for name in files {
            let bytes = try [UInt8](Data(contentsOf: dir.appendingPathComponent(name)))
            #expect(!bytes.isEmpty, "\(name)")
            do {
                exerciseEngine(try StructureReader.read(bytes: bytes, fileName: name))
            } catch let e as StructureReadError {
                #expect(e.file == name && !e.message.isEmpty && Self.saysWhere(e), "\(name): \(e)")
            }
        }
        // The two the README describes are refused: a category given twice with other row counts.
        for name in ["mmcif-907eee0e6376.bin", "mmcif-f7b9b7ed29d9.bin"] {
            let e = Self.error(try [UInt8](Data(contentsOf: dir.appendingPathComponent(name))), name: name)
            #expect(e?.message.contains("category appears again") == true, "\(name): \(String(describing: e))")
        }
    }
}

/// Runs what `proteinar info` runs on a structure: bonds, secondary structure, summary.
func exerciseEngine(_ s: Structure) {
    for i in s.models.indices.prefix(2) {
        _ = BondBuilder.bonds(of: s.models[i], in: s)
        _ = s.secondaryStructure(modelIndex: i, compute: true)
    }
    _ = StructureSummary(s)
}


/// Inputs whose cost would grow with the square of their size in a naive implementation: every
/// atom at one point. They must finish (the limit guards against a hang, it is not a speed target).
@Suite("Degenerate input")
struct DegenerateInputTests {
    static func pdb(residues: Int, name: String, atoms: [(String, String)], record: String) -> [UInt8] {
        var text = ""
        var serial = 0
        for r in 1...residues {
            for (atom, element) in atoms {
                serial += 1
                let atomField = atom.count < 4 ? " " + atom.padding(toLength: 3, withPad: " ", startingAt: 0) : atom
                let number = String(r % 10000)
                text += record + String(repeating: " ", count: 5 - String(serial % 100000).count) + String(serial % 100000) + " "
                    + atomField + " " + name + " A" + String(repeating: " ", count: 4 - number.count) + number
                    + "       1.000   2.000   3.000  1.00  0.00          " + element.leftPadded(2) + "\n"
            }
        }
        return Array(text.utf8)
    }

    @Test("20,000 protein residues at one point", .timeLimit(.minutes(1)))
    func collapsedProtein() throws {
        let bytes = Self.pdb(residues: 20_000, name: "ALA", atoms: [("N", "N"), ("CA", "C"), ("C", "C"), ("O", "O")], record: "ATOM  ")
        let s = try StructureReader.read(bytes: bytes, fileName: "collapsed.pdb")
        #expect(s.firstModel?.atoms.count == 80_000)
        exerciseEngine(s)
    }

    @Test("20,000 unknown ligands at one point", .timeLimit(.minutes(1)))
    func collapsedLigands() throws {
        let bytes = Self.pdb(residues: 20_000, name: "ZZZ", atoms: [("C1", "C"), ("C2", "C"), ("O1", "O")], record: "HETATM")
        let s = try StructureReader.read(bytes: bytes, fileName: "collapsed.pdb")
        #expect(s.firstModel?.atoms.count == 60_000)
        exerciseEngine(s)
    }
}

extension String {
    func leftPadded(_ n: Int) -> String { count >= n ? self : String(repeating: " ", count: n - count) + self }
}

/// MOL2 and small-molecule CIF input that is malformed: each error names the file, the line and the field.
extension BadInputTests {
    static let mol2Header = "@<TRIPOS>MOLECULE\nm\n 2 1\nSMALL\nNO_CHARGES\n\n@<TRIPOS>ATOM\n"

    @Test func mol2WithoutAtomSection() {
        let e = Self.error("@<TRIPOS>MOLECULE\nm\n 2 0\nSMALL\nNO_CHARGES\n", name: "no-atoms.mol2")
        #expect(e?.line == 1 && e?.field == "@<TRIPOS>ATOM" && e?.message.contains("no @<TRIPOS>ATOM section") == true)
    }

    @Test func mol2ShortAtomLine() {
        let e = Self.error(Self.mol2Header + " 1 C1 0.0 0.0 0.0 C.3\n 2 C2 1.5 0.0\n", name: "short.mol2")
        #expect(e?.file == "short.mol2" && e?.line == 9 && e?.field == "@<TRIPOS>ATOM")
        #expect(e?.message.contains("atom 2: 4 fields where at least 6") == true)
    }

    @Test func mol2BondToMissingAtom() {
        let e = Self.error(Self.mol2Header + " 1 C1 0.0 0.0 0.0 C.3\n 2 C2 1.5 0.0 0.0 C.3\n@<TRIPOS>BOND\n 1 1 7 1\n", name: "bond.mol2")
        #expect(e?.line == 11 && e?.field == "@<TRIPOS>BOND target_atom_id (field 3)")
        #expect(e?.message.contains("atom 7 is not an atom_id") == true)
    }

    @Test func mol2BadNumbers() {
        let x = Self.error(Self.mol2Header + " 1 C1 0.0 1.2.3 0.0 C.3\n", name: "y.mol2")
        #expect(x?.line == 8 && x?.field == "@<TRIPOS>ATOM y (field 4)")
        let charge = Self.error(Self.mol2Header + " 1 C1 0.0 0.0 0.0 C.3 1 LIG1 zero\n", name: "q.mol2")
        #expect(charge?.line == 8 && charge?.field == "@<TRIPOS>ATOM charge (field 9)")
        let type = Self.error(Self.mol2Header + " 1 C1 0 0 0 C.3\n 2 C2 1.5 0 0 C.3\n@<TRIPOS>BOND\n 1 1 2 quadruple\n", name: "t.mol2")
        #expect(type?.line == 11 && type?.field == "@<TRIPOS>BOND bond_type (field 4)")
        let id = Self.error(Self.mol2Header + " one C1 0 0 0 C.3\n", name: "id.mol2")
        #expect(id?.line == 8 && id?.field == "@<TRIPOS>ATOM atom_id (field 1)")
    }

    @Test func mol2HugeOrWrongCounts() {
        let huge = Self.error("@<TRIPOS>MOLECULE\nm\n 999999999 0\nSMALL\n", name: "huge.mol2")
        #expect(huge?.line == 3 && huge?.field == "@<TRIPOS>MOLECULE num_atoms (field 1)")
        let nan = Self.error("@<TRIPOS>MOLECULE\nm\n lots 0\n", name: "nan.mol2")
        #expect(nan?.line == 3 && nan?.field == "@<TRIPOS>MOLECULE num_atoms (field 1)")
        let fewer = Self.error(Self.mol2Header + " 1 C1 0 0 0 C.3\n", name: "fewer.mol2")
        #expect(fewer?.line == 1 && fewer?.message.contains("1 atom lines where its counts line declares 2") == true)
        let more = Self.error(Self.mol2Header + " 1 C1 0 0 0 C.3\n 2 C2 0 0 1.5 C.3\n 3 C3 0 0 3 C.3\n", name: "more.mol2")
        #expect(more?.line == 10 && more?.field == "@<TRIPOS>ATOM")
        let twice = Self.error(Self.mol2Header + " 1 C1 0 0 0 C.3\n 1 C2 0 0 1.5 C.3\n", name: "twice.mol2")
        #expect(twice?.line == 9 && twice?.message.contains("used twice") == true)
        let early = Self.error("# a comment\n@<TRIPOS>ATOM\n 1 C1 0 0 0 C.3\n", name: "early.mol2")
        #expect(early?.line == 2 && early?.field == "@<TRIPOS>MOLECULE")
    }

    static let crystal = """
    data_x
    _cell_length_a 5.0(1)
    _cell_length_b 6.0
    _cell_length_c 7.0
    loop_
    _symmetry_equiv_pos_as_xyz
    x,y,z
    -x,-y,-z
    loop_
    _atom_site_label
    _atom_site_type_symbol
    _atom_site_fract_x
    _atom_site_fract_y
    _atom_site_fract_z
    C1 C 0.1 0.2 0.3
    O1 O 0.2 0.3 0.4

    """

    @Test func smallCIFReads() throws {
        let s = try StructureReader.read(bytes: Array(Self.crystal.utf8), fileName: "ok.cif")
        #expect(s.firstModel?.atoms.count == 4)
    }

    @Test func smallCIFMissingCell() {
        let e = Self.error(Self.crystal.replacingOccurrences(of: "_cell_length_b 6.0\n", with: ""), name: "cell.cif")
        #expect(e?.field == "_cell_length_b" && e?.message.contains("required") == true)
        let bad = Self.error(Self.crystal.replacingOccurrences(of: "_cell_length_c 7.0", with: "_cell_length_c seven"), name: "c.cif")
        #expect(bad?.line == 4 && bad?.field == "_cell_length_c")
        let flat = Self.error(Self.crystal.replacingOccurrences(of: "_cell_length_c 7.0", with: "_cell_length_c 0"), name: "flat.cif")
        #expect(flat?.line == 2 && flat?.message.contains("cell length c") == true)
    }

    @Test func smallCIFBadNumbersAndOperations() {
        let e = Self.error(Self.crystal.replacingOccurrences(of: "O1 O 0.2 0.3", with: "O1 O 0.2 0.3x"), name: "n.cif")
        #expect(e?.line == 16 && e?.field == "_atom_site_fract_y" && e?.message.contains("0.3x") == true)
        let op = Self.error(Self.crystal.replacingOccurrences(of: "-x,-y,-z", with: "-x,-y"), name: "op.cif")
        #expect(op?.line == 8 && op?.field == "_symmetry_equiv_pos_as_xyz")
        let column = Self.error(Self.crystal.replacingOccurrences(of: "_atom_site_fract_z\n", with: "").replacingOccurrences(of: " 0.3\n", with: "\n")
            .replacingOccurrences(of: " 0.4\n", with: "\n"), name: "z.cif")
        #expect(column?.field == "_atom_site_fract_z" && column?.line != nil)
        let many = (0..<200).map { _ in "x,y,z" }.joined(separator: "\n")
        let ops = Self.error(Self.crystal.replacingOccurrences(of: "x,y,z\n-x,-y,-z", with: many), name: "ops.cif")
        #expect(ops?.field == "_symmetry_equiv_pos_as_xyz" && ops?.message.contains("more than the 192") == true)
    }
}

