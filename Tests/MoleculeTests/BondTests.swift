import Foundation
import Testing
@testable import Molecule

@Suite("Bonds")
struct BondTests {
    @Test("every bond is within the covalent range of its elements", arguments: Fixtures.macromolecularFiles + ["ATP.cif", "HEM.cif", "first_200.props.sdf", "CHEMBL2321810_scaffold.mol", "benzene.xyz"])
    func bondLengths(file: String) throws {
        let s = try Fixtures.read(file)
        let model = try #require(s.firstModel)
        let bonds = BondBuilder.bonds(of: model, in: s)
        #expect(bonds.count > 0)
        var bad: [String] = []
        for k in 0..<bonds.count {
            let i = Int(bonds.a[k]), j = Int(bonds.b[k])
            let d = model.atoms.positions[i] - model.atoms.positions[j]
            let length = (d * d).sum().squareRoot()
            let ei = model.atoms.elements[i], ej = model.atoms.elements[j]
            // Independent bound: sum of covalent radii ± 0.45 Å.
            if length > ei.covalentRadius + ej.covalentRadius + 0.45 || length < 0.4 {
                bad.append("\(model.atoms.names[i])-\(model.atoms.names[j]) \(length)")
            }
        }
        #expect(bad.isEmpty, "\(file): \(bad.prefix(5))")
    }

    @Test("standard residues get their dictionary bonds with orders")
    func dictionaryOrders() throws {
        let table = ComponentBondTable.standard
        let phe = try #require(table.bonds(of: "PHE"))
        #expect(phe.contains { Set([$0.atom1, $0.atom2]) == ["C", "O"] && $0.order == .double })
        #expect(phe.contains { $0.order == .aromatic })
        #expect(table.bonds(of: "HOH") != nil)
        #expect(table.bonds(of: "HEM") != nil)
    }

    /// Crambin (1EJG, 0.54 Å, with hydrogens, alternate locations and two microheterogeneous
    /// positions): the expected count is computed here straight from the dictionary table, by a
    /// plain double loop over atom pairs, independently of the builder's grid and lookups.
    @Test("crambin has exactly its dictionary bonds, its other hydrogens' one each, peptide links and three disulfides")
    func crambin() throws {
        let s = try Fixtures.read("pdb1ejg.pdb")
        let m = try #require(s.firstModel)
        let table = ComponentBondTable.standard
        func compatible(_ i: Int, _ j: Int) -> Bool {
            let a = m.atoms.altLocs[i], b = m.atoms.altLocs[j]
            return a == 0 || b == 0 || a == b
        }
        var expected = 0
        for res in m.residues {
            let dict = try #require(table.bonds(of: res.name), "\(res.name) missing from the table")
            let pairs = Set(dict.map { [$0.atom1, $0.atom2].sorted() })
            for i in res.atomRange { for j in res.atomRange where j > i && compatible(i, j) {
                if pairs.contains([m.atoms.names[i], m.atoms.names[j]].sorted()) { expected += 1 }
            } }
            // A hydrogen the dictionary does not name (Thr 1's H1 and H3, of an NH3+) has one bond.
            let named = Set(dict.flatMap { [$0.atom1, $0.atom2] })
            expected += res.atomRange.filter { m.atoms.elements[$0].isHydrogen && !named.contains(m.atoms.names[$0]) }.count
        }
        var peptide = 0
        for r in 0..<m.residues.count { for q in (r + 1)..<m.residues.count {
            let a = m.residues[r], b = m.residues[q]
            // Consecutive sequence positions (microheterogeneous alternatives share a number).
            guard b.number == a.number + 1 else { continue }
            for i in a.atomRange where m.atoms.names[i] == "C" { for j in b.atomRange where m.atoms.names[j] == "N" && compatible(i, j) { peptide += 1 } }
        } }
        let bonds = BondBuilder.bonds(of: m, in: s)
        var disulfides = 0
        for k in 0..<bonds.count where m.atoms.names[Int(bonds.a[k])] == "SG" && m.atoms.names[Int(bonds.b[k])] == "SG" { disulfides += 1 }
        #expect(disulfides == 3)
        #expect(peptide >= 45)
        #expect(bonds.count == expected + peptide + 3)
    }

    @Test("unknown residues are bonded by distance")
    func distanceFallback() throws {
        var model = Model(number: 1)
        // Ethanol-like fragment with a made-up residue name.
        let atoms: [(String, Element, SIMD3<Float>)] = [("C1", .carbon, [0, 0, 0]), ("C2", .carbon, [1.52, 0, 0]), ("O1", .oxygen, [2.0, 1.35, 0]),
                                                         ("X9", .carbon, [8, 8, 8])]
        for (n, e, p) in atoms { model.atoms.append(Atom(name: n, element: e, isHetero: true, position: p)) }
        model.residues = [Residue(name: "ZZZ", number: 1, atomStart: 0, atomEnd: 4)]
        model.chains = [Chain(id: "A", residueStart: 0, residueEnd: 1)]
        var s = Structure()
        s.models = [model]
        #expect(BondBuilder.bonds(of: model, in: s).count == 2)
    }
}

@Suite("Assemblies")
struct AssemblyTests {
    @Test("7CTH assembly 1 expands to 600 chains and 1,000,020 atoms")
    func virus() throws {
        let s = try Fixtures.read("mmcif_7cth.cif")
        let a = try s.expandingAssembly("1")
        let m = try #require(a.firstModel)
        #expect(m.chains.count == 600)
        #expect(m.atoms.count == 1_000_020)
        #expect(s.chainCount(ofAssembly: s.assemblies[0]) == 600)
        // Copies are rigid: the distance between a chain's first and last atom is kept by every operator.
        func span(_ chain: Chain) -> Float {
            let first = Int(m.residues[Int(chain.residueStart)].atomStart)
            let last = Int(m.residues[Int(chain.residueEnd) - 1].atomEnd) - 1
            let d = m.atoms.positions[first] - m.atoms.positions[last]
            return (d * d).sum().squareRoot()
        }
        let copies = m.chains.filter { $0.sourceID == m.chains[0].sourceID }
        #expect(copies.count == 60)
        #expect(copies.allSatisfy { abs(span($0) - span(copies[0])) < 0.01 })
    }

    @Test("PDB REMARK 350 assemblies")
    func remark350() throws {
        let s = try Fixtures.read("4JSV.pdb")
        #expect(s.assemblies.count == 2)
        let a = try s.expandingAssembly("1")
        #expect(a.firstModel?.chains.map(\.id) == ["B", "D"])
    }

    @Test("unknown assembly ids are refused with the known ones listed")
    func unknownAssembly() throws {
        let s = try Fixtures.read("mmcif_7cth.cif")
        #expect(throws: AssemblyError.self) { try s.expandingAssembly("99") }
    }

    @Test("operator expressions")
    func operatorExpressions() throws {
        #expect(try OperatorExpression.parse("1") == [["1"]])
        #expect(try OperatorExpression.parse("1,2,5") == [["1"], ["2"], ["5"]])
        #expect(try OperatorExpression.parse("(1-3)") == [["1"], ["2"], ["3"]])
        let product = try OperatorExpression.parse("(1-60)(61-88)")
        #expect(product.count == 60 * 28)
        #expect(product.first == ["1", "61"])
        #expect(product.last == ["60", "88"])
        #expect(try OperatorExpression.parse("(X0)(1-2,5)") == [["X0", "1"], ["X0", "2"], ["X0", "5"]])
        #expect(throws: OperatorExpression.ParseError.self) { try OperatorExpression.parse("(1-3") }
        #expect(throws: OperatorExpression.ParseError.self) { try OperatorExpression.parse("5-2") }
        #expect(throws: OperatorExpression.ParseError.self) { try OperatorExpression.parse("") }
    }
}
