import Foundation
import Geometry
import Molecule
import Testing
@testable import ProteinDesign

/// Full-atom designs: side chains with the CCD's atoms and geometry, rotamers as asked, proline's
/// ring closed, and no clash left by the packing.
@Suite("Side chains")
struct SideChainTests {
    /// Every amino acid, in a design that holds together.
    static let allTwenty = "SPEELIKRFAEWLMKNGDGYEEVQKHLCETLR"

    /// Heavy atoms per residue in the CCD (without OXT).
    static let heavyAtoms: [String: Int] = [
        "ALA": 5, "ARG": 11, "ASN": 8, "ASP": 8, "CYS": 6, "GLN": 9, "GLU": 9, "GLY": 4, "HIS": 10, "ILE": 8,
        "LEU": 8, "LYS": 9, "MET": 8, "PHE": 11, "PRO": 7, "SER": 6, "THR": 7, "TRP": 14, "TYR": 12, "VAL": 7,
    ]

    @Test("every residue carries as many heavy atoms as its CCD entry (check-designs compares the names with the CCD's)")
    func everyAtom() throws {
        let design = ProteinDesigner.build(try DesignSpec(parsing: "helix:14,coil:4,helix:14", sequence: Self.allTwenty, seed: 2))
        #expect(design.verdict.isValid, "\(design.verdict.reasons)")
        let model = try #require(design.structure.models.first)
        #expect(Set(model.residues.map(\.name)).count == 20)
        for residue in model.residues {
            #expect(Int(residue.atomEnd - residue.atomStart) == Self.heavyAtoms[residue.name], "\(residue.name) \(residue.number)")
        }
    }

    @Test("a side chain takes the χ angles it is given; proline's ring closes")
    func rotamerGeometry() throws {
        var chain = BackboneChain(sequence: Array("AKPFA"))
        for r in 0..<chain.count { (chain.phi[r], chain.psi[r]) = (radians(-65), radians(145)) }
        chain.build(0..<chain.count)
        let lysine = chain.sideChain(1, chis: [-67, 180, 175, -65])
        #expect(abs(dihedralDegrees(chain.n[1], chain.ca[1], chain.cb[1], lysine[0]) + 67) < 1e-6)
        #expect(abs(abs(dihedralDegrees(chain.ca[1], chain.cb[1], lysine[0], lysine[1])) - 180) < 1e-6)
        #expect(abs(dihedralDegrees(lysine[0], lysine[1], lysine[2], lysine[3]) + 65) < 1e-6)
        for chi1 in [-30.0, 30] {
            let ring = chain.sideChain(2, chis: try #require(chain.closedProline(2, chi1: chi1)))
            #expect(abs(length(ring[1] - chain.n[2]) - SideChainGeometry.prolineBondNCD) < 0.02)
        }
        // Phenylalanine's ring is planar: CZ lies in the plane of CG, CD1 and CE1.
        let ring = chain.sideChain(3, chis: [-65, -85])
        #expect(abs(dihedralDegrees(ring[0], ring[1], ring[3], ring[5])) < 1)
    }

    @Test("packing leaves no heavy atoms of residues two or more apart closer than 3.0 Å (2.6 Å backbone N···O), and every proline ring closed")
    func noClash() throws {
        for (pieces, sequence) in [("helix:14,coil:4,helix:14", Self.allTwenty), ("strand:7,coil:2,strand:7", "TWTVRIYNGKEFYVEV"),
                                   ("helix:16,coil:3,helix:16", nil), ("rigid-coil:8,helix:14,coil:4,helix:14", nil)] {
            for seed: UInt64 in 1...3 {
                let design = ProteinDesigner.build(try DesignSpec(parsing: pieces, sequence: sequence, seed: seed))
                #expect(design.verdict.isValid, "\(pieces) seed \(seed): \(design.verdict.reasons)")
                let model = try #require(design.structure.models.first)
                var residueOf: [Int] = []
                for (k, residue) in model.residues.enumerated() { residueOf += Array(repeating: k, count: Int(residue.atomEnd - residue.atomStart)) }
                var closest = Double.infinity
                let atoms = model.atoms
                for i in 0..<atoms.count {
                    for j in 0..<atoms.count where residueOf[j] - residueOf[i] >= 2 {
                        let limit = Set([atoms.names[i], atoms.names[j]]) == ["N", "O"] ? 2.6 : 3.0
                        closest = min(closest, Double(length(atoms.positions[i] - atoms.positions[j])) - limit)
                    }
                }
                #expect(closest >= 0, "\(pieces) seed \(seed): a pair \(-closest) Å too close")
                // Every proline's ring is closed, whatever pucker the packing chose.
                for (k, residue) in model.residues.enumerated() where residue.name == "PRO" {
                    let n = try #require(model.atomIndex(named: "N", inResidue: k))
                    let cd = try #require(model.atomIndex(named: "CD", inResidue: k))
                    #expect(abs(Double(length(atoms.positions[n] - atoms.positions[cd])) - SideChainGeometry.prolineBondNCD) < 0.02)
                }
            }
        }
    }
}

/// Hydrogens, when asked for: every one bonded to one heavy atom of its residue, the verdict
/// unchanged, no heavy-atom clash (test_designs.py compares the partners with the CCD's).
@Suite("Hydrogens")
struct HydrogenTests {
    /// Hydrogens per residue inside the chain at pH 7: the CCD's, less the carboxyl's HXT and the
    /// amino end's second H; Asp and Glu without their acid H, His without HD1.
    static let hydrogens: [String: Int] = [
        "ALA": 5, "ARG": 13, "ASN": 6, "ASP": 4, "CYS": 5, "GLN": 8, "GLU": 6, "GLY": 3, "HIS": 7, "ILE": 11,
        "LEU": 11, "LYS": 13, "MET": 9, "PHE": 9, "PRO": 7, "SER": 5, "THR": 7, "TRP": 10, "TYR": 9, "VAL": 9,
    ]

    @Test("every residue has its hydrogens, each within bonding distance of one heavy atom of its residue and of no other atom; the verdict is the same")
    func everyHydrogen() throws {
        for (pieces, sequence) in [("helix:14,coil:4,helix:14", SideChainTests.allTwenty), ("helix:10", "PAEELLKKLA"), ("strand:7,coil:2,strand:7", nil)] {
            var spec = try DesignSpec(parsing: pieces, sequence: sequence, seed: 2)
            let bare = ProteinDesigner.build(spec)
            spec.hydrogens = true
            let design = ProteinDesigner.build(spec)
            #expect(design.verdict == bare.verdict)
            let model = try #require(design.structure.models.first)
            let atoms = model.atoms
            for (k, residue) in model.residues.enumerated() {
                let range = Int(residue.atomStart)..<Int(residue.atomEnd)
                let light = range.filter { atoms.elements[$0].isHydrogen }
                // The amino end carries three hydrogens (proline two) where a residue inside the chain has one (proline none).
                let amino = k == 0 ? 2 : 0
                #expect(light.count == (Self.hydrogens[residue.name] ?? -1) + amino, "\(pieces): \(residue.name) \(residue.number) has \(light.count) hydrogens")
                #expect(range.count - light.count == SideChainTests.heavyAtoms[residue.name], "\(residue.name) \(residue.number)")
                for h in light {
                    // Covalent range: the radii summed plus 0.25 Å (1.32 Å for C–H, 0.87 Å for H–H).
                    let near = (0..<atoms.count).filter {
                        $0 != h && length(atoms.positions[$0] - atoms.positions[h]) <= atoms.elements[$0].covalentRadius + atoms.elements[h].covalentRadius + 0.25
                    }
                    #expect(near.count == 1 && !atoms.elements[near[0]].isHydrogen && range.contains(near[0]),
                            "\(residue.name) \(residue.number) \(atoms.names[h]) is near \(near.map { atoms.names[$0] })")
                }
                #expect(design.verdict.isValid == bare.verdict.isValid)
            }
        }
    }
}

/// Motifs beyond a single pair of pieces.
@Suite("Motifs")
struct MotifTests {
    @Test("three strands joined by hairpin turns are a β-meander, with a real example")
    func meander() throws {
        let design = ProteinDesigner.build(try DesignSpec(parsing: "strand:5,coil:2,strand:5,coil:2,strand:5"), libraryIDs: Motif.exampleIDs)
        #expect(design.verdict.isValid, "\(design.verdict.reasons)")
        let meander = try #require(design.verdict.motifs.first { $0.name == "β-meander" })
        #expect(meander.pieces == [1, 3, 5])
        #expect(meander.example?.id == "3KPR")
        #expect(design.verdict.motifs.filter { $0.name == "β-hairpin" }.count == 2)
    }

    /// Strands along +x in the plane z = 0, the helix above them: seen with the strands pointing
    /// away and the helix up, a right-handed crossover puts the second strand on the right (−y).
    @Test("a β-α-β crossover's handedness: right-handed when the second strand lies to the right")
    func handedness() throws {
        var builder = Builder(spec: try DesignSpec(parsing: "strand:6,coil:3,helix:12,coil:3,strand:6"))
        let first = builder.elements[0], helix = builder.elements[1], second = builder.elements[2]
        for side in [-4.85, 4.85] {
            for (k, r) in first.residues.enumerated() { builder.chain.ca[r] = SIMD3(3.3 * Double(k), 0, 0) }
            for (k, r) in second.residues.enumerated() { builder.chain.ca[r] = SIMD3(3.3 * Double(k), side, 0) }
            for (k, r) in helix.residues.enumerated() { builder.chain.ca[r] = SIMD3(18 - 1.5 * Double(k), side / 2, 10) }
            #expect(builder.placed.isRightHanded(first, helix, second) == (side < 0))
        }
    }
}
