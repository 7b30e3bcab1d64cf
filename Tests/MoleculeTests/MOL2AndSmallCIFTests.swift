import Foundation
import Testing
@testable import Molecule

/// Tripos MOL2 and small-molecule (crystal) CIF, on the fixtures in Tests/MoleculeTests/Fixtures.
@Suite("MOL2 and small-molecule CIF")
struct MOL2AndSmallCIFTests {
    static func read(_ name: String, limits: ReadLimits = .standard) throws -> Structure {
        try StructureReader.read(bytes: try bytes(name), fileName: name, limits: limits)
    }

    static func bytes(_ name: String) throws -> [UInt8] {
        try Fixtures.bytesAt(Fixtures.moleculeFixtures.appendingPathComponent(name))
    }

    // MARK: MOL2

    @Test func twoMoleculesAreTwoModels() throws {
        let s = try Self.read("benzene_nma.mol2")
        #expect(s.sourceFormat == .mol2)
        #expect(s.models.count == 2)
        #expect(s.metadata.title == "benzene")
        #expect(s.recordProperties.map { $0["title"] } == ["benzene", "N-methylacetamide"])
        let benzene = s.models[0], nma = s.models[1]
        #expect(benzene.atoms.count == 12 && benzene.bonds.count == 12)
        #expect(benzene.bonds.filter { $0.order == .aromatic }.count == 6)
        #expect(benzene.atoms.elements.filter { $0 == .carbon }.count == 6)
        #expect(nma.atoms.count == 12 && nma.bonds.count == 11)
        #expect(nma.atoms.elements.filter { $0 == .nitrogen }.count == 1)
        // The amide bond ("am") is a single bond; "2" the carbonyl.
        #expect(nma.bonds.filter { $0.order == .double }.count == 1)
        #expect(nma.bonds.allSatisfy { $0.order != .unknown && $0.order != .aromatic })
        // The file's bonds are the molecule's bonds.
        #expect(BondBuilder.bonds(of: benzene, in: s).count == 12)
        #expect(StructureSummary(s).bonds == 12)
    }

    @Test func residuesAndChainsOfAProtein() throws {
        let s = try Self.read("dipeptide_water.mol2")
        let m = try #require(s.firstModel)
        #expect(m.atoms.count == 18)
        #expect(m.bonds.count == 16)
        #expect(m.residues.map(\.name) == ["MET", "GLN", "HOH"])
        #expect(m.residues.map(\.number) == [1, 2, 101])
        #expect(m.chains.map(\.id) == ["A", "W"])
        #expect(m.atoms.names.prefix(4) == ["N", "CA", "C", "O"])
        #expect(m.atoms.elements[6] == .sulfur)
        #expect(m.atoms.isHetero[0] == false && m.atoms.isHetero[17] == true)
        #expect(m.atoms.serials.last == 18)
        let summary = StructureSummary(s)
        #expect(summary.waters == 1)
        #expect(summary.chains.first?.sequence == "MQ")
    }

    @Test("a chain that comes back gets its residues moved to it, bonds following their atoms")
    func chainsComeBack() throws {
        let text = """
        @<TRIPOS>MOLECULE
        three residues
         3 2 3
        PROTEIN
        NO_CHARGES

        @<TRIPOS>ATOM
         1 CA 0.0 0.0 0.0 C.3 1 ALA1 0.0
         2 CA 3.8 0.0 0.0 C.3 2 GLY2 0.0
         3 CA 7.6 0.0 0.0 C.3 3 SER3 0.0
        @<TRIPOS>BOND
         1 1 3 1
         2 2 3 2
        @<TRIPOS>SUBSTRUCTURE
         1 ALA1 1 RESIDUE 1 A ALA
         2 GLY2 2 RESIDUE 1 B GLY
         3 SER3 3 RESIDUE 1 A SER

        """
        let m = try #require(try StructureReader.read(bytes: Array(text.utf8), fileName: "abc.mol2").firstModel)
        #expect(m.chains.map(\.id) == ["A", "B"])
        #expect(m.residues.map(\.name) == ["ALA", "SER", "GLY"])
        #expect(m.atoms.positions.map(\.x) == [0, 7.6, 3.8])
        // ALA–SER single, GLY–SER double, by the new indices.
        #expect(m.bonds == [ModelBond(a: 0, b: 1, order: .single), ModelBond(a: 2, b: 1, order: .double)])
    }

    @Test("SYBYL types give elements; LP is no atom; Du is unknown")
    func sybylTypes() throws {
        func element(_ t: String) -> Element? {
            var s = t
            return s.withUTF8 { MOL2Parser.element(type: $0) }
        }
        #expect(element("C.ar") == .carbon)
        #expect(element("N.am") == .nitrogen)
        #expect(element("O.co2") == .oxygen)
        #expect(element("Cl") == Element(symbol: "Cl"))
        #expect(element("CL") == Element(symbol: "Cl"))
        #expect(element("Co.oh") == Element(symbol: "Co"))
        #expect(element("H.spc") == .hydrogen)
        #expect(element("Du") == .unknown)
        #expect(element("Du.C") == .unknown)
        let text = """
        @<TRIPOS>MOLECULE
        water with a lone pair
         4 3
        SMALL
        NO_CHARGES

        @<TRIPOS>ATOM
         1 O1 0.0 0.0 0.0 O.3 1 HOH1 0.0
         2 H1 0.9 0.0 0.0 H 1 HOH1 0.0
         3 LP1 -0.3 0.3 0.0 LP 1 HOH1 0.0
         4 D1 -0.3 -0.9 0.0 Du 1 HOH1 0.0
        @<TRIPOS>BOND
         1 1 2 1
         2 1 3 1
         3 1 4 du

        """
        let s = try StructureReader.read(bytes: Array(text.utf8), fileName: "lp.mol2")
        let m = try #require(s.firstModel)
        #expect(m.atoms.count == 3)
        #expect(m.atoms.elements == [.oxygen, .hydrogen, .unknown])
        #expect(m.bonds == [ModelBond(a: 0, b: 1, order: .single), ModelBond(a: 0, b: 2, order: .unknown)])
    }

    @Test("subst_name splits into name and number as Open Babel writes it")
    func residueNames() {
        #expect(MOL2Parser.residue(substName: "ALA12", substID: 1, molecule: "x") == ("ALA", 12))
        #expect(MOL2Parser.residue(substName: "HOH301", substID: 9, molecule: "x") == ("HOH", 301))
        #expect(MOL2Parser.residue(substName: "GLY-3", substID: 1, molecule: "x") == ("GLY", -3))
        #expect(MOL2Parser.residue(substName: "ATP", substID: 4, molecule: "x") == ("ATP", 4))
        #expect(MOL2Parser.residue(substName: "123", substID: 4, molecule: "x") == ("123", 4))
        #expect(MOL2Parser.residue(substName: nil, substID: nil, molecule: "HEM") == ("HEM", 1))
        #expect(MOL2Parser.residue(substName: "****", substID: 2, molecule: "a long name") == ("LIG", 2))
    }

    @Test("recognised from content after comments, whatever the name")
    func detection() throws {
        #expect(StructureReader.detectFormat(try Self.bytes("benzene_nma.mol2")) == .mol2)
        #expect(try StructureReader.read(bytes: try Self.bytes("dipeptide_water.mol2"), fileName: "x.pdb").sourceFormat == .mol2)
    }

    @Test func mol2Limits() throws {
        let models = try #require(throws: StructureReadError.self) { try Self.read("benzene_nma.mol2", limits: ReadLimits(maxModels: 1)) }
        #expect(models.isTooLarge && models.line == 36 && models.field == "@<TRIPOS>MOLECULE")
        let atoms = try #require(throws: StructureReadError.self) { try Self.read("benzene_nma.mol2", limits: ReadLimits(maxAtoms: 20)) }
        #expect(atoms.isTooLarge && atoms.field?.contains("num_atoms") == true)
    }

    // MARK: Small-molecule CIF

    @Test("the unit cell's contents, as gemmi's get_all_unit_cell_sites counts them",
          arguments: [("nacl.cif", 8, 2), ("urea.cif", 16, 5), ("acylurea_98K.cif", 62, 31)])
    func unitCellContents(file: String, atoms: Int, sites: Int) throws {
        let s = try Self.read(file)
        #expect(s.sourceFormat == .smallMoleculeCIF)
        let m = try #require(s.firstModel)
        #expect(m.atoms.count == atoms)
        #expect(s.recordProperties.first?["sites"] == String(sites))
        let cell = try #require(s.metadata.cell)
        // Every atom inside the cell: fractional coordinates in [0, 1).
        let r = cell.orthogonalization
        for p in m.atoms.positions {
            let z = Double(p.z) / r[2].z
            let y = (Double(p.y) - r[1].z * z) / r[1].y
            let x = (Double(p.x) - r[0].y * y - r[0].z * z) / r[0].x
            #expect([x, y, z].allSatisfy { $0 > -1e-5 && $0 < 1 + 1e-5 }, "\(file): \(p) is outside the cell")
        }
        exerciseEngine(s)
    }

    @Test func rockSalt() throws {
        let s = try Self.read("nacl.cif")
        let m = try #require(s.firstModel)
        #expect(s.metadata.cell == UnitCell(a: 5.6402, b: 5.6402, c: 5.6402))
        #expect(s.metadata.spaceGroup == "F m -3 m")
        #expect(s.metadata.title == "sodium chloride")
        #expect(m.atoms.elements.filter { $0 == Element(symbol: "Na") }.count == 4)
        #expect(m.atoms.elements.filter { $0 == Element(symbol: "Cl") }.count == 4)
        let half = Float(5.6402 / 2)
        let expected: Set<SIMD3<Float>> = [SIMD3(0, 0, 0), SIMD3(0, half, half), SIMD3(half, 0, half), SIMD3(half, half, 0)]
        let na = (0..<m.atoms.count).filter { m.atoms.elements[$0] == Element(symbol: "Na") }.map { m.atoms.positions[$0] }
        #expect(na.allSatisfy { p in expected.contains { ($0 - p).squaredLength < 1e-6 } })
        // U_iso becomes B = 8π²U.
        #expect(abs(m.atoms.bFactors[0] - Float(8 * Double.pi * Double.pi * 0.011)) < 1e-4)
    }

    @Test func triclinicCellAndUncertainties() throws {
        let s = try Self.read("acylurea_98K.cif")
        let cell = try #require(s.metadata.cell)
        #expect(cell == UnitCell(a: 8.7038, b: 12.204, c: 4.9747, alpha: 93.021, beta: 90.616, gamma: 90.319))
        #expect(abs(cell.volume - 527.64) < 0.2)
        #expect(s.metadata.id == "ethyl98K")
        let m = try #require(s.firstModel)
        #expect(BondBuilder.bonds(of: m, in: s).count > 50)
    }

    @Test("mmCIF-style names (with the dot) read the same as CIF1's")
    func dottedNames() throws {
        let cif1 = String(decoding: try Self.bytes("nacl.cif"), as: UTF8.self)
        var dotted = cif1
        for (from, to) in [("_cell_length_", "_cell.length_"), ("_cell_angle_", "_cell.angle_"), ("_atom_site_", "_atom_site."),
                           ("_space_group_symop_", "_space_group_symop."), ("_chemical_name_", "_chemical.name_")] {
            dotted = dotted.replacingOccurrences(of: from, with: to)
        }
        let a = try StructureReader.read(bytes: Array(cif1.utf8), fileName: "a.cif")
        let b = try StructureReader.read(bytes: Array(dotted.utf8), fileName: "b.cif")
        #expect(a.firstModel?.atoms.positions == b.firstModel?.atoms.positions)
        #expect(b.metadata.cell == a.metadata.cell)
    }

    @Test("CIF1 loops: the category is the tags' common beginning; dotted loops still may not mix")
    func cif1Loops() throws {
        let text = """
        data_x
        _cell_length_a 3
        loop_
        _atom_site_label
        _atom_site_fract_x
        C1 0.5
        loop_
        _symmetry_equiv_pos_as_xyz
        x,y,z

        """
        let block = try #require(try CIFParser.parse(Array(text.utf8), fileName: "x.cif").first)
        #expect(block["atom_site"]?["fract_x"] != nil)
        #expect(block.column(tag: "atom_site_fract_x")?.double(0) == 0.5)
        #expect(block.column(tag: "atom_site_label")?.string(0) == "C1")
        #expect(block.column(tag: "symmetry_equiv_pos_as_xyz")?.string(0) == "x,y,z")
        #expect(block.column(tag: "cell_length_a")?.double(0) == 3)
        #expect(block.column(tag: "atom_site_fract_y") == nil)
        let mixed = "data_x\nloop_\n_atom_site.id\n_atom_type.symbol\n1 C\n"
        let e = try #require(throws: StructureReadError.self) { try CIFParser.parse(Array(mixed.utf8), fileName: "m.cif") }
        #expect(e.message.contains("loop mixes categories"))
    }

    @Test("symmetry operations as coordinate triplets")
    func operations() throws {
        let op = try #require(SymmetryOperationText.parse("-x+1/2, y+1/2, -z+1/2"))
        #expect(op.rotation == [-1, 0, 0, 0, 1, 0, 0, 0, -1])
        #expect(op.translation == SIMD3(0.5, 0.5, 0.5))
        let hex = try #require(SymmetryOperationText.parse("x-y, X, z+1/6"))
        #expect(hex.rotation == [1, -1, 0, 1, 0, 0, 0, 0, 1])
        #expect(abs(hex.translation.z - 1.0 / 6) < 1e-12)
        #expect(SymmetryOperationText.parse("1/2+x,-y,z+0.25")?.translation == SIMD3(0.5, 0, 0.25))
        #expect(SymmetryOperationText.parse("x,y") == nil)
        #expect(SymmetryOperationText.parse("x,x,z") == nil)
        #expect(SymmetryOperationText.parse("x,y,q") == nil)
        #expect(SymmetryOperationText.parse("x y,y,z") == nil)
        #expect(SymmetryOperationText.parse("x,y,z/0") == nil)
    }

    @Test func cifLimits() throws {
        let e = try #require(throws: StructureReadError.self) { try Self.read("nacl.cif", limits: ReadLimits(maxAtoms: 5)) }
        #expect(e.isTooLarge && e.line != nil)
    }

    @Test("every new fixture cut at many places fails saying where, or reads",
          arguments: ["benzene_nma.mol2", "dipeptide_water.mol2", "nacl.cif", "urea.cif", "acylurea_98K.cif"])
    func truncations(file: String) throws {
        let full = try Self.bytes(file)
        var errors = 0
        for k in stride(from: 1, to: full.count, by: max(1, full.count / 97)) {
            do {
                exerciseEngine(try StructureReader.read(bytes: Array(full.prefix(k)), fileName: file))
            } catch let e as StructureReadError {
                errors += 1
                #expect(e.file == file && !e.message.isEmpty && BadInputTests.saysWhere(e), "cut at \(k): \(e)")
            }
        }
        #expect(errors > 0)
    }
}

extension SIMD3 where Scalar == Float {
    var squaredLength: Float { (self * self).sum() }
}
