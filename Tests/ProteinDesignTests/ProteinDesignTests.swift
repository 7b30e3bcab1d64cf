import Foundation
import Molecule
import Testing
@testable import ProteinDesign

/// The builder: geometry, the engine's own DSSP on designs, verdicts and bad input.
@Suite("Protein design")
struct ProteinDesignTests {
    static func build(_ text: String, sequence: String? = nil, seed: UInt64 = 1) throws -> Design {
        ProteinDesigner.build(try DesignSpec(parsing: text, sequence: sequence, seed: seed), libraryIDs: ["1LCD", "1UBI"])
    }

    static func positions(_ d: Design) -> [String: [SIMD3<Double>]] {
        let model = d.structure.models[0]
        var out: [String: [SIMD3<Double>]] = [:]
        for name in ["N", "CA", "C", "O"] {
            out[name] = model.residues.indices.map { r in
                let p = model.atoms.positions[model.atomIndex(named: name, inResidue: r)!]
                return SIMD3(Double(p.x), Double(p.y), Double(p.z))
            }
        }
        return out
    }

    @Test("backbone bonds and angles are ideal; helix torsions are the targets")
    func geometry() throws {
        let design = try Self.build("helix:14,coil:4,helix:14")
        let p = Self.positions(design)
        let n = p["N"]!, ca = p["CA"]!, c = p["C"]!, o = p["O"]!
        let seq = design.spec.sequence
        func dist(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> Double { ((a - b) * (a - b)).sum().squareRoot() }
        func angle(_ a: SIMD3<Double>, _ b: SIMD3<Double>, _ c: SIMD3<Double>) -> Double {
            let u = a - b, v = c - b
            return acos((u * v).sum() / (dist(a, b) * dist(c, b))) * 180 / .pi
        }
        for i in 0..<seq.count {
            let gly = seq[i] == "G"
            #expect(abs(dist(n[i], ca[i]) - (gly ? 1.451 : 1.458)) < 0.002)
            #expect(abs(dist(ca[i], c[i]) - (gly ? 1.516 : 1.525)) < 0.002)
            #expect(abs(dist(c[i], o[i]) - 1.231) < 0.002)
            #expect(abs(angle(n[i], ca[i], c[i]) - (gly ? 113.1 : 111.2)) < 0.05)
            #expect(abs(angle(ca[i], c[i], o[i]) - 120.1) < 0.05)
            if i + 1 < seq.count {
                #expect(abs(dist(c[i], n[i + 1]) - 1.329) < 0.002)
                #expect(abs(angle(ca[i], c[i], n[i + 1]) - 116.2) < 0.05)
                #expect(abs(angle(c[i], n[i + 1], ca[i + 1]) - 121.7) < 0.05)
                #expect(abs(abs(dihedralDegrees(ca[i], c[i], n[i + 1], ca[i + 1])) - 180) < 0.1)
            }
        }
        for range in [design.pieceRanges[0], design.pieceRanges[2]] {
            for i in range where i > 0 && i + 1 < seq.count {
                #expect(abs(dihedralDegrees(c[i - 1], n[i], ca[i], c[i]) - -57) < 0.1)
                #expect(abs(dihedralDegrees(n[i], ca[i], c[i], n[i + 1]) - -47) < 0.1)
            }
        }
    }

    @Test("DSSP finds H in helix pieces and E in both strands of a hairpin")
    func secondaryStructure() throws {
        let hth = try Self.build("helix:14,coil:4,helix:14")
        #expect(hth.verdict.isValid, "\(hth.verdict.reasons)")
        for r in 1..<13 { #expect(hth.secondaryStructure[r] == .alphaHelix) }
        for r in 19..<31 { #expect(hth.secondaryStructure[r] == .alphaHelix) }

        let hairpin = try Self.build("strand:6,coil:2,strand:6")
        #expect(hairpin.verdict.isValid, "\(hairpin.verdict.reasons)")
        let codes = String(hairpin.secondaryStructure.map(\.letter))
        #expect(codes.prefix(6).filter { $0 == "E" }.count >= 3, "\(codes)")
        #expect(codes.suffix(6).filter { $0 == "E" }.count >= 3, "\(codes)")
        #expect(hairpin.verdict.motifs.contains { $0.name == "β-hairpin" && $0.example?.id == "1UBI" })
    }

    @Test("valid designs say so and name their motifs; impossible ones say why")
    func verdicts() throws {
        let hth = try Self.build("helix:14,coil:4,helix:14")
        #expect(hth.verdict.message == "Congratulations, you have created a new protein made of Helix – Flex coil – Helix")
        #expect(hth.verdict.motifs.map(\.name) == ["helix-turn-helix"])
        #expect(hth.verdict.motifs.first?.example?.id == "1LCD")

        let kinked = try Self.build("helix:20,coil:1,helix:20")
        #expect(!kinked.verdict.isValid)
        #expect(kinked.verdict.message == "Sorry, this combination cannot be made")
        #expect(kinked.verdict.reasons.contains { $0.contains("too short to turn") }, "\(kinked.verdict.reasons)")
        // The refusal marks what it is about: the 1-residue coil (residue 21) among the residues lit.
        #expect(kinked.verdict.marked.contains { $0.contains(20) }, "\(kinked.verdict.marked)")
        #expect(kinked.verdict.markedSelection?.hasPrefix("A:") == true)
        #expect(hth.verdict.marked.isEmpty && hth.verdict.markedSelection == nil)
        let twoStrands = try Self.build("strand:6,strand:6")
        #expect(twoStrands.verdict.marked == [0..<12], "the strands with no partner: \(twoStrands.verdict.marked)")

        let straight = try Self.build("helix:14,strand:6")
        #expect(!straight.verdict.isValid)
        #expect(straight.verdict.reasons.contains { $0.contains("without a coil") }, "\(straight.verdict.reasons)")

        #expect(!(try Self.build("coil:8")).verdict.isValid)
        #expect((try Self.build("helix")).verdict.isValid)
    }

    @Test("valid designs have no heavy atoms closer than 3.0 Å (2.6 Å for N···O) beyond neighbouring residues")
    func noClashes() throws {
        for text in ["helix:14,coil:4,helix:14", "strand:6,coil:2,strand:6", "helix:12,coil:3,helix:12,coil:3,helix:12",
                     "strand:5,coil:3,helix:12,coil:3,strand:5", "rigid-coil:6,helix:10"] {
            let d = try Self.build(text)
            guard d.verdict.isValid else { continue }
            let model = d.structure.models[0]
            let residueOf = model.residueIndexOfAtoms()
            for a in 0..<model.atoms.count {
                for b in (a + 1)..<model.atoms.count where residueOf[b] - residueOf[a] >= 2 {
                    let pa = model.atoms.positions[a], pb = model.atoms.positions[b]
                    let d2 = ((pa - pb) * (pa - pb)).sum().squareRoot()
                    let names = Set([model.atoms.names[a], model.atoms.names[b]])
                    #expect(d2 >= (names == ["N", "O"] ? 2.6 : 3.0) - 1e-3, "\(text): atoms \(a) and \(b) at \(d2) Å")
                }
            }
        }
    }

    @Test("a seed reproduces a design exactly; another seed gives other coils")
    func reproducible() throws {
        let a = try Self.build("helix:10,coil:6,helix:10", seed: 7)
        let b = try Self.build("helix:10,coil:6,helix:10", seed: 7)
        #expect(a.structure.models[0].atoms.positions == b.structure.models[0].atoms.positions)
    }

    @Test("bad input: a clear error each")
    func badInput() {
        func message(_ text: String, sequence: String? = nil) -> String {
            do { _ = try DesignSpec(parsing: text, sequence: sequence); return "" } catch { return error.message }
        }
        #expect(message("helix:14,wing:3").contains("'wing:3' is not a piece"))
        #expect(message("helix:0").contains("lengths are 1 to 500"))
        #expect(message("helix:501").contains("lengths are 1 to 500"))
        #expect(message("helix:x").contains("whole numbers"))
        #expect(message("helix:4", sequence: "AAXA").contains("'X' at position 3"))
        #expect(message("helix:4", sequence: "AAA").contains("3 residues but the pieces have 4"))
        #expect(message("helix:500,helix:500,helix:500,helix:500,helix:500").contains("at most 2000"))
        #expect(message("").contains("is not a piece"))
        #expect(message("helix:4", sequence: "AAßA").contains("'ß' at position 3"))
        #expect((try? DesignSpec(parsing: "helix:4", sequence: "aa a a"))?.sequence == Array("AAAA"))
    }

    @Test("the longest coil a design may hold is built with bounded work and judged")
    func longCoil() throws {
        let design = try Self.build("helix:14,coil:500,coil:500,coil:500,coil:472,helix:14")  // one 1,972-residue coil
        #expect(design.spec.residueCount == 2000 && design.structure.models[0].residues.count == 2000)
        #expect(!design.verdict.message.isEmpty)
    }
}
