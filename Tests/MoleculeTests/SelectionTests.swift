import Testing
@testable import Molecule

@Suite("Selection")
struct SelectionTests {
    func residues(_ sel: String, _ m: Model, _ s: Structure) throws -> [String] {
        let mask = try Selection(parsing: sel).atoms(in: m, structure: s)
        let chainOf = m.chainIndexOfResidues()
        return m.residues.indices.filter { r in m.residues[r].atomRange.contains { mask[$0] } }
            .map { "\(m.chains[Int(chainOf[$0])].id):\(m.residues[$0].label)" }
    }

    /// A model with chain A residues 1, 2, 2A, 2B, 3 (ALA), a ligand, a water, and chain B residue 1.
    func smallModel() -> (Structure, Model) {
        var m = Model(number: 1)
        func add(_ name: String, _ number: Int32, _ icode: Character? = nil, atoms: [(String, Element)]) {
            let start = Int32(m.atoms.count)
            for (n, e) in atoms { m.atoms.append(Atom(name: n, element: e, position: SIMD3(Float(m.atoms.count), 0, 0))) }
            m.residues.append(Residue(name: name, number: number, insertionCode: icode?.asciiValue ?? 0,
                                      atomStart: start, atomEnd: Int32(m.atoms.count)))
        }
        let ala: [(String, Element)] = [("N", .nitrogen), ("CA", .carbon), ("C", .carbon), ("O", .oxygen), ("H", .hydrogen)]
        add("ALA", 1, atoms: ala); add("ALA", 2, atoms: ala); add("ALA", 2, "A", atoms: ala); add("ALA", 2, "B", atoms: ala)
        add("ALA", 3, atoms: ala); add("HEM", 101, atoms: [("FE", Element(symbol: "Fe")!)]); add("HOH", 201, atoms: [("O", .oxygen)])
        m.chains.append(Chain(id: "A", residueStart: 0, residueEnd: 7))
        add("DA", 1, atoms: [("P", .phosphorus), ("C1'", .carbon)])
        m.chains.append(Chain(id: "B", residueStart: 7, residueEnd: 8))
        var s = Structure()
        s.models = [m]
        return (s, m)
    }

    @Test func keywordsAndChains() throws {
        let (s, m) = smallModel()
        #expect(try residues("all", m, s).count == 8)
        #expect(try residues("ligands", m, s) == ["A:101"])
        #expect(try residues("water", m, s) == ["A:201"])
        #expect(try residues("nucleic", m, s) == ["B:1"])
        #expect(try residues("protein", m, s) == ["A:1", "A:2", "A:2A", "A:2B", "A:3"])
        #expect(try residues("B", m, s) == ["B:1"])
        #expect(try residues("PROTEIN", m, s).count == 5)
        let h = try Selection(parsing: "hydrogens").atoms(in: m, structure: s)
        #expect(h.filter { $0 }.count == 5)
        #expect(zip(h, m.atoms.elements).allSatisfy { $0 == $1.isHydrogen })
    }

    @Test func rangesWithInsertionCodes() throws {
        let (s, m) = smallModel()
        #expect(try residues("A:2", m, s) == ["A:2"])
        #expect(try residues("A:2A", m, s) == ["A:2A"])
        #expect(try residues("A:1-2", m, s) == ["A:1", "A:2", "A:2A", "A:2B"])
        #expect(try residues("A:2A-3", m, s) == ["A:2A", "A:2B", "A:3"])
        #expect(try residues("A:2-2A", m, s) == ["A:2", "A:2A"])
        #expect(try residues("A:-5-1", m, s) == ["A:1"])
        #expect(try Selection(parsing: "A:10-50").terms == [
            .init(negated: false, predicate: .residues(chain: "A", from: .init(number: 10), through: .init(number: 50, insertionCode: 0xFF))),
        ])
    }

    @Test func unionAndNot() throws {
        let (s, m) = smallModel()
        #expect(try residues("A:1,ligands", m, s) == ["A:1", "A:101"])
        #expect(try residues(" B , water ", m, s) == ["A:201", "B:1"])
        #expect(try residues("not water", m, s).count == 7)
        #expect(try !residues("not water", m, s).contains("A:201"))
        #expect(try residues("NOT protein", m, s) == ["A:101", "A:201", "B:1"])
        #expect(try residues("not all", m, s).isEmpty)
        let notH = try Selection(parsing: "not hydrogens").atoms(in: m, structure: s)
        #expect(zip(notH, m.atoms.elements).allSatisfy { $0 != $1.isHydrogen })
    }

    @Test func unknownChainIsNotAParseError() throws {
        let (s, m) = smallModel()
        let sel = try Selection(parsing: "Z:1-5")
        #expect(sel.matchesNothing(in: m, structure: s))
        #expect(sel.unknownChains(in: m) == ["Z"])
        #expect(try !Selection(parsing: "A,Z").matchesNothing(in: m, structure: s))
        #expect(try Selection(parsing: "A,Z").unknownChains(in: m) == ["Z"])
    }

    @Test(arguments: ["", "A,,B", "A:", "A:x", "A:10-", "A:10-x", "A:50-10", "A:1-2-3", "not", "not ", "A B", "#!", "A:10?"])
    func invalidInputs(text: String) {
        #expect(throws: SelectionError.self) { try Selection(parsing: text) }
    }

    @Test func errorsNameTheTokenAndListAccepted() {
        do {
            _ = try Selection(parsing: "A:10-50,lig@nds")
            Issue.record("expected an error")
        } catch {
            #expect(error.token == "lig@nds")
            #expect(error.description.contains("lig@nds"))
            #expect(error.description.contains("ligands") && error.description.contains("water") && error.description.contains("A:10-50"))
        }
    }

    @Test func realStructure() throws {
        let ake = try Fixtures.read("pdb1ake.pdb")
        let r = try residues("A:10-50", ake.models[0], ake)
        #expect(r.count == 41 && r.first == "A:10" && r.last == "A:50")

        let s = try Fixtures.read("1LCD.pdb")  // protein A, DNA B and C, sodium ions, water
        let m = s.models[0]
        let water = try Selection(parsing: "water").atoms(in: m, structure: s)
        let notWater = try Selection(parsing: "not water").atoms(in: m, structure: s)
        let hohAtoms = m.residues.filter { $0.name == "HOH" }.reduce(0) { $0 + $1.atomCount }
        #expect(hohAtoms > 0 && water.filter { $0 }.count == hohAtoms)
        #expect(zip(water, notWater).allSatisfy { $0 != $1 })
        let ions = try Selection(parsing: "ligands").atoms(in: m, structure: s)
        let sodium = m.residues.filter { $0.name == "NA" }.reduce(0) { $0 + $1.atomCount }
        #expect(sodium > 0 && ions.filter { $0 }.count == sodium)
        let nucleic = try Selection(parsing: "nucleic").atoms(in: m, structure: s)
        let bc = try Selection(parsing: "B,C").atoms(in: m, structure: s)
        #expect(nucleic.filter { $0 }.count > 400)
        #expect(zip(nucleic, bc).allSatisfy { !$0 || $1 })
        let protein = try Selection(parsing: "protein").atoms(in: m, structure: s)
        #expect(zip(protein, nucleic).allSatisfy { !($0 && $1) })
        #expect(try Selection(parsing: "Q").matchesNothing(in: m, structure: s))
    }
}
