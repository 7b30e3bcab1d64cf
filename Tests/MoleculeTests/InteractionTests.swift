import Foundation
import Testing
@testable import Molecule

/// The interaction finder on PLIP's own complexes (the figures PLIP 3.0.1 gives for them; the whole
/// set is compared in scripts/checks/test_interactions.py) and on input that must not break it.
struct InteractionTests {
    static func counts(_ site: LigandSite) -> [InteractionKind: Int] {
        site.interactions.reduce(into: [:]) { $0[$1.kind, default: 0] += 1 }
    }

    @Test("tacrine in acetylcholinesterase (1ACJ): stacking on Trp 84 and Phe 330, water bridges, as PLIP finds them")
    func tacrine() throws {
        let structure = try Fixtures.read("complexes/1acj.pdb")
        let sites = InteractionFinder.sites(in: structure)
        let site = try #require(sites.first { structure.models[0].residues[$0.residues[0]].name == "THA" })
        let counts = Self.counts(site)
        #expect(counts[.piStacking] == 4 && counts[.hydrophobic] == 6 && counts[.waterBridge] == 4)
        #expect(site.interactions.filter { $0.kind == .piStacking }.allSatisfy { $0.form == "parallel" && $0.distance < 4.5 })
        let model = structure.models[0]
        let stacked = Set(site.interactions.filter { $0.kind == .piStacking }.map { model.residues[Int(model.residueIndexOfAtoms()[$0.to[0]])].number })
        #expect(stacked == [84, 330])
        #expect(!site.isAdditive && site.siteResidues.count == 13)
        // Asking for one ligand by name or by chain:number gives that one only.
        #expect(InteractionFinder.sites(in: structure, ligand: "THA").count == 1)
        #expect(InteractionFinder.sites(in: structure, ligand: "A:999").count == 1)
        #expect(InteractionFinder.sites(in: structure, ligand: "XYZ").isEmpty)
    }

    @Test("Mg·ATP (1XDN): the LINKed ion and nucleotide are one ligand; the Mg is coordinated by ATP and four waters")
    func magnesiumATP() throws {
        let structure = try Fixtures.read("complexes/1xdn.pdb")
        let model = structure.models[0]
        let site = try #require(InteractionFinder.sites(in: structure).first { s in s.residues.contains { model.residues[$0].name == "ATP" } })
        #expect(Set(site.residues.map { model.residues[$0].name }) == ["ATP", "MG"])
        let metal = site.interactions.filter { $0.kind == .metalComplex }
        #expect(metal.count == 6 && metal.allSatisfy { $0.distance < 3 })
        let names = Set(metal.map { model.atoms.names[$0.to[0]] })
        #expect(names.isSuperset(of: ["O1G", "O2B"]))
        // Every atom named belongs to the model; every distance is what the atoms' places give.
        func distance(_ a: Int, _ b: Int) -> Float {
            let v = model.atoms.positions[a] - model.atoms.positions[b]
            return (v * v).sum().squareRoot()
        }
        for i in site.interactions where [.hydrogenBond, .metalComplex, .hydrophobic, .halogenBond].contains(i.kind) {
            #expect(abs(distance(i.from[0], i.to[0]) - i.distance) < 1e-3)
        }
        // A water bridge's distance is its acceptor's to the water.
        for i in site.interactions where i.kind == .waterBridge {
            let water = try #require(i.water)
            #expect(abs(distance(i.ligandDonates == true ? i.to[0] : i.from[0], water) - i.distance) < 1e-3)
        }
    }

    @Test("no ligand, one atom, every atom at one place: answers, never a crash")
    func degenerate() throws {
        let ubiquitin = try Fixtures.read("pdb1ubi.pdb")
        #expect(InteractionFinder.sites(in: ubiquitin).isEmpty)
        var lines = ["ATOM      1  CA  GLY A   1       0.000   0.000   0.000  1.00  0.00           C"]
        for k in 0..<400 {
            lines.append(String(format: "HETATM%5d  C%-2d LIG B   1       1.000   1.000   1.000  1.00  0.00           C", k + 2, k % 99))
        }
        let piled = try StructureReader.read(bytes: Array((lines.joined(separator: "\n") + "\nEND\n").utf8), fileName: "piled.pdb")
        let sites = InteractionFinder.sites(in: piled)
        #expect(sites.count == 1 && sites[0].interactions.allSatisfy { $0.distance.isFinite })
        let report = InteractionReport(piled, sites: sites)
        #expect(report.sites.count == 1)
    }

    @Test("chain interfaces: 2XHE's two chains touch; each H-bond joins an N or O of one to an N or O of the other within 4.1 Å")
    func chainInterfaces() throws {
        let structure = try Fixtures.read("2XHE.pdb.gz")
        let model = try #require(structure.firstModel)
        let found = ChainInterfaces.find(in: structure)
        #expect(found.count == 1)
        let interface = try #require(found.first)
        let chainOf = model.chainIndexOfResidues(), residueOf = model.residueIndexOfAtoms()
        #expect(interface.residues.0.allSatisfy { Int(chainOf[$0]) == interface.chains.0 } && interface.residues.1.allSatisfy { Int(chainOf[$0]) == interface.chains.1 })
        #expect(interface.residues.0.count > 20 && interface.residues.1.count > 20)
        let hbonds = interface.interactions.filter { $0.kind == .hydrogenBond }
        #expect(!hbonds.isEmpty)
        for bond in hbonds {
            let (a, b) = (bond.from[0], bond.to[0])
            #expect(Int(chainOf[Int(residueOf[a])]) == interface.chains.0 && Int(chainOf[Int(residueOf[b])]) == interface.chains.1)
            #expect([7, 8].contains(model.atoms.elements[a].atomicNumber) && [7, 8].contains(model.atoms.elements[b].atomicNumber))
            #expect(bond.distance < 4.1)
        }
        // One chain alone touches nothing.
        var alone = structure
        alone.models[0].chains = [model.chains[0]]
        #expect(ChainInterfaces.find(in: alone).isEmpty)
    }

    @Test("a dictionary component's ring nitrogens have the dictionary's hydrogens: 1OSN's ADP N7 and N1 take, N6 gives")
    func dictionaryNitrogens() throws {
        let structure = try Fixtures.read("complexes/1osn.pdb")
        let model = try #require(structure.firstModel)
        let chemistry = AtomChemistry(model: model, bonds: BondBuilder.bonds(of: model, in: structure))
        // The first whole ADP (chain B's; chain A's lacks atoms).
        let whole = model.residues.indices.first { model.residues[$0].name == "ADP" && model.atomIndex(named: "N6", inResidue: $0) != nil }
        let adp = try #require(whole)
        func atom(_ name: String) throws -> Int {
            let found = model.atomIndex(named: name, inResidue: adp)
            return try #require(found)
        }
        #expect(chemistry.typing.dictionaryHydrogens(try atom("N6"), residueName: "ADP") == 2)
        #expect(chemistry.typing.dictionaryHydrogens(try atom("N7"), residueName: "ADP") == 0)
        #expect(chemistry.typing.dictionaryHydrogens(try atom("N7"), residueName: "NOTACOMPONENT") == nil)
        for name in ["N7", "N1", "N3"] {
            let a = try atom(name)
            #expect(chemistry.isAcceptor[a] && chemistry.donors[a] == nil, "\(name)")
        }
        #expect(chemistry.donors[try atom("N6")] != nil)
    }

    @Test("a file's hydrogens are read as they stand, wherever written: Open Babel's, after the last heavy atom, join their residues; a protonated Asp donates, a His with its hydrogen on ND1 takes on NE2 only")
    func givenHydrogens() throws {
        let lines = try String(contentsOfFile: Fixtures.path("pdb1ubi.pdb"), encoding: .utf8).split(separator: "\n")
            .filter { $0.hasPrefix("ATOM") && [" 21", " 68"].contains($0.dropFirst(22).prefix(4).suffix(3)) }
        let text = lines.joined(separator: "\n") + """

            ATOM    661  H   ASP A  21      31.747  22.221   7.388  1.00  0.00           H
            ATOM    662  H   HIS A  68      24.635  37.135  17.840  1.00  0.00           H
            END

            """
        let structure = try StructureReader.read(bytes: Array(text.utf8), fileName: "protonated.pdb")
        let model = try #require(structure.firstModel)
        #expect(model.residues.map(\.name) == ["ASP", "HIS"])
        #expect(model.residues.allSatisfy { r in r.atomRange.contains { model.atoms.elements[$0].atomicNumber == 1 } })
        let chemistry = AtomChemistry(model: model, bonds: BondBuilder.bonds(of: model, in: structure))
        func atom(_ name: String, _ residue: Int) throws -> Int {
            let found = model.atomIndex(named: name, inResidue: residue)
            return try #require(found)
        }
        let od1 = try atom("OD1", 0), od2 = try atom("OD2", 0), nd1 = try atom("ND1", 1), ne2 = try atom("NE2", 1)
        #expect(chemistry.donors[od2] != nil && chemistry.isAcceptor[od2])
        #expect(chemistry.donors[od1] == nil && chemistry.isAcceptor[od1])
        #expect(chemistry.donors[nd1] != nil && !chemistry.isAcceptor[nd1])
        #expect(chemistry.donors[ne2] == nil && chemistry.isAcceptor[ne2])
        // The backbone N of a residue that carries hydrogens, but not this one: no hydrogen is assumed.
        #expect(chemistry.donors[try atom("N", 1)] == nil)
        // Without them, the chemistry of pH 7: Asp charged, His's tautomer unknown.
        let bare = try StructureReader.read(bytes: Array((lines.joined(separator: "\n") + "\nEND\n").utf8), fileName: "bare.pdb")
        let bareModel = try #require(bare.firstModel)
        let bareChemistry = AtomChemistry(model: bareModel, bonds: BondBuilder.bonds(of: bareModel, in: bare))
        let bareOD2 = try #require(bareModel.atomIndex(named: "OD2", inResidue: 0))
        let bareNE2 = try #require(bareModel.atomIndex(named: "NE2", inResidue: 1))
        #expect(bareChemistry.donors[bareOD2] == nil && bareChemistry.donors[bareNE2] != nil && bareChemistry.isAcceptor[bareNE2])
    }

    @Test("a ligand's ring written twice (alternate locations without their letters) is one ring, not every combination of its copies")
    func ringCopies() throws {
        var lines: [String] = []
        for copy in 0..<2 {
            for k in 0..<6 {
                let angle = Double(k) * .pi / 3, shift = Double(copy) * 0.2
                lines.append(String(format: "HETATM%5d  C%d  BNZ A   1    %8.3f%8.3f%8.3f  0.50 10.00           C",
                                    copy * 6 + k + 1, k + 1, 1.39 * cos(angle) + shift, 1.39 * sin(angle), 0.0))
            }
        }
        let structure = try StructureReader.read(bytes: Array((lines.joined(separator: "\n") + "\nEND\n").utf8), fileName: "copies.pdb")
        let model = try #require(structure.firstModel)
        let chemistry = AtomChemistry(model: model, bonds: BondBuilder.bonds(of: model, in: structure))
        let rings = RingFinder.planarRings(Array(0..<model.atoms.count), in: chemistry, deviation: 5)
        #expect(rings.count == 1)
    }
}
