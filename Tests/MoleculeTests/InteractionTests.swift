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
}
