import Foundation
import Geometry
import Molecule
import Testing
@testable import ProteinDesign

/// Loop closure (cyclic coordinate descent), the antiparallel partner of a strand, and verdicts
/// that do not depend on the seed.
@Suite("Loop closure")
struct LoopClosureTests {
    /// A chain whose residues 3–7 are a coil: it is built once, its residue 9 remembered, the coil
    /// given other torsions, and closure must bring residue 9 back (an exact solution exists).
    @Test("cyclic coordinate descent brings a moved loop's end back onto its place")
    func closesALoop() {
        var random = SeededGenerator(seed: 7)
        var closed = 0
        for _ in 0..<6 {
            var chain = BackboneChain(sequence: Array("TVKGNSGSTVKV"))
            for r in 0..<chain.count { (chain.phi[r], chain.psi[r]) = RamachandranRegion.sample(RamachandranRegion.regions(for: "G"), using: &random) }
            chain.build(0..<chain.count)
            let targets = [BackboneAtom.Name.n, .ca, .c].map { (atom: BackboneAtom(residue: 9, name: $0), position: chain.position(BackboneAtom(residue: 9, name: $0))) }
            let turning = (3...7).flatMap { [Torsion.phi($0), .psi($0)] } + [.phi(8), .psi(8)]
            // Like the builder, a few starting shapes of the loop, each closed from there.
            for _ in 0..<4 {
                for r in 3...7 { (chain.phi[r], chain.psi[r]) = RamachandranRegion.sample(RamachandranRegion.regions(for: "G"), using: &random) }
                chain.build(0..<chain.count)
                let before = chain.deviation(targets)
                let after = chain.close(turning: turning, onto: targets, allowed: { _ in RamachandranRegion.regions(for: "G") })
                #expect(after <= before + 1e-9)
                if after < 0.3 { closed += 1; break }
            }
        }
        #expect(closed == 6)
    }

    @Test("an ideal strand's screw axis runs along the strand, not along one zigzag step")
    func strandAxis() {
        var chain = BackboneChain(sequence: Array("TVKVEVTV"))
        for r in 0..<chain.count { (chain.phi[r], chain.psi[r]) = (radians(-139), radians(135)) }
        chain.build(0..<chain.count)
        let axis = AntiparallelPartner.screwAxis(from: chain.frame(3), to: chain.frame(4), travelling: chain.ca[4] - chain.ca[3])
        let span = normalized(chain.ca[6] - chain.ca[2])
        #expect(dot(axis, span) > 0.99)
    }

    @Test("a hairpin is valid for every seed, with at least 80 % of its strand residues E")
    func hairpinsForEverySeed() throws {
        for seed: UInt64 in 1...6 {
            let design = ProteinDesigner.build(try DesignSpec(parsing: "strand:5,coil:2,strand:5", seed: seed))
            #expect(design.verdict.isValid, "seed \(seed): \(design.verdict.reasons)")
            let strands = Array(design.pieceRanges[0]) + Array(design.pieceRanges[2])
            let e = strands.filter { design.secondaryStructure[$0] == .strand }.count
            #expect(Double(e) >= 0.8 * Double(strands.count), "seed \(seed): \(e) of \(strands.count) E")
            #expect(design.spec.seed == seed)
        }
    }

    @Test("a refusal gives the same reasons whatever the seed")
    func refusalsForEverySeed() throws {
        for pieces in ["strand:7,strand:7", "helix:30,coil:1,helix:30"] {
            let verdicts = try (1...3).map { seed in ProteinDesigner.build(try DesignSpec(parsing: pieces, seed: UInt64(seed))).verdict }
            #expect(verdicts.allSatisfy { !$0.isValid }, "\(pieces)")
            #expect(Set(verdicts.map(\.reasons)).count == 1, "\(pieces): \(verdicts.map(\.reasons))")
        }
        let straight = try ProteinDesigner.build(DesignSpec(parsing: "strand:7,strand:7")).verdict
        #expect(straight.reasons.contains { $0.contains("no coil between them") && $0.contains("β-hairpin") })
    }
}
