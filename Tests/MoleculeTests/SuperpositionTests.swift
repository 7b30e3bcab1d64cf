import Foundation
import Testing
@testable import Molecule

/// Superposition (Sources/Molecule/Superposition): a known motion recovered, identical chains,
/// pairing by structure when the sequences say nothing, and the errors a mismatched pair gives.
/// The comparison with TM-align on real pairs is scripts/checks/test_superpose.py.
@Suite("Superposition")
struct SuperpositionTests {
    /// A rotation of `degrees` about `axis`, then `translation`.
    static func motion(axis: SIMD3<Double>, degrees: Double, translation: SIMD3<Double>) -> RigidTransform {
        let half = degrees * Double.pi / 360
        let u = axis / (axis * axis).sum().squareRoot()
        let q = SIMD4(cos(half), u.x * sin(half), u.y * sin(half), u.z * sin(half))
        return RigidTransform(quaternion: q, translation: translation)
    }

    static func maxDifference(_ a: RigidTransform, _ b: RigidTransform) -> Double {
        let ra = a.matrix4x4.flatMap { $0 }, rb = b.matrix4x4.flatMap { $0 }
        return zip(ra, rb).map { abs($0 - $1) }.max() ?? 0
    }

    @Test("a structure moved by a known motion: the motion is recovered and every atom lands within 1e-3 Å")
    func recoversKnownMotion() throws {
        let original = try Fixtures.read("pdb1ake.pdb")
        let known = Self.motion(axis: SIMD3(0.3, -0.8, 0.5), degrees: 137, translation: SIMD3(12.5, -40.25, 7.75))
        let moved = original.transformed(by: known)
        let r = try Superposition.superpose(original, onto: moved)
        #expect(r.alignedLength == 214)
        #expect(r.keptLength == 214)
        #expect(r.rmsd < 1e-3, "RMSD \(r.rmsd)")
        #expect(r.rmsdAll < 1e-3)
        #expect(r.tmScore > 0.9999)
        #expect(Self.maxDifference(r.transform, known) < 1e-4, "\(r.transform.matrix4x4) vs \(known.matrix4x4)")
        // Applied to the whole structure: every atom (not only Cα) onto its moved self.
        let back = original.transformed(by: r.transform)
        let pa = try #require(back.firstModel).atoms.positions, pb = try #require(moved.firstModel).atoms.positions
        #expect(pa.count == pb.count)
        let worst = zip(pa, pb).map { p, q in Double(((p - q) * (p - q)).sum().squareRoot()) }.max() ?? 0
        #expect(worst < 1e-3, "worst atom \(worst) Å")
    }

    @Test("the fit is a proper rotation (determinant +1) even for points that fit a reflection better")
    func properRotation() throws {
        var g = SeededGenerator(seed: 7)
        let a = (0..<30).map { _ in SIMD3(Double.random(in: -10...10, using: &g), Double.random(in: -10...10, using: &g),
                                           Double.random(in: -10...10, using: &g)) }
        let mirrored = a.map { SIMD3(-$0.x, $0.y, $0.z) }
        let fit = try #require(KabschFit.fit(a, mirrored))
        let m = fit.transform.rotation
        let det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
        #expect(abs(det - 1) < 1e-9)
        // The RMSD the eigenvalue gives is the RMSD the transform gives.
        #expect(abs(fit.rmsd - KabschFit.rmsd(a, mirrored, transform: fit.transform)) < 1e-9)
    }

    @Test("identical chains: RMSD 0, TM-score 1, every pair kept, identity 100 %")
    func identicalChains() throws {
        let s = try Fixtures.read("pdb1ubi.pdb")
        let r = try Superposition.superpose(s, onto: s)
        #expect(r.rmsd < 1e-6)
        #expect(r.rmsdAll < 1e-6)
        #expect(abs(r.tmScore - 1) < 1e-9)
        #expect(r.keptLength == r.alignedLength)
        #expect(r.alignedLength == r.lengthA)
        #expect(r.sequenceIdentity == 1)
        #expect(r.pairing == .sequence)
        #expect(r.cycles == 0)
        #expect(Self.maxDifference(r.transform, .identity) < 1e-9)
    }

    @Test("NMR models: --model picks the model; transformed moves every model")
    func models() throws {
        let s = try Fixtures.read("1LCD.pdb")
        let r = try Superposition.superpose(s, onto: s, options: .init(chainA: "A", chainB: "A", modelA: 2, modelB: 1))
        #expect(r.rmsd > 0.1 && r.rmsd < 2)
        let moved = s.transformed(by: Self.motion(axis: SIMD3(0, 0, 1), degrees: 90, translation: SIMD3(1, 2, 3)))
        for m in moved.models.indices {
            let p = s.models[m].atoms.positions[0], q = moved.models[m].atoms.positions[0]
            #expect(abs(q.x - (-p.y + 1)) < 1e-3 && abs(q.y - (p.x + 2)) < 1e-3 && abs(q.z - (p.z + 3)) < 1e-3)
        }
        #expect(throws: SuperpositionError.modelNotFound(side: "B", number: 9, available: [1, 2, 3])) {
            try Superposition.superpose(s, onto: s, options: .init(modelB: 9))
        }
    }

    @Test("sequences that say nothing: pairing by structure finds the residues that correspond")
    func pairsByStructure() throws {
        let model = try #require(Fixtures.read("pdb1ake.pdb").firstModel)
        let full = CalphaTrace(model: model, chainIndex: 0)
        // A: the chain without its first 10 residues, every letter G; B: the whole chain, every letter W.
        var a = CalphaTrace(chainID: "A", residues: Array(full.residues.dropFirst(10)))
        for i in a.residues.indices { a.residues[i].code = "G" }
        var b = full
        for i in b.residues.indices { b.residues[i].code = "W" }
        let motion = Self.motion(axis: SIMD3(1, 1, 0), degrees: 60, translation: SIMD3(5, 5, 5))
        for i in b.residues.indices { b.residues[i].position = motion.apply(b.residues[i].position) }
        let r = try Superposition.superpose(a, onto: b)
        #expect(r.pairing == .structure)
        let right = r.pairs.filter { $0.a.number == $0.b.number }.count
        #expect(right >= a.count - 2, "\(right) of \(r.alignedLength) pairs correspond")
        #expect(r.rmsd < 1e-3)
        #expect(abs(r.tmScore - Double(a.count) / Double(b.count)) < 1e-3)
        #expect(Self.maxDifference(r.transform, motion) < 1e-4)
    }

    @Test("helix and strand from Cα alone: ubiquitin's helix and strands where DSSP has them (56 of 76 residues agree)")
    func calphaSecondaryStructure() throws {
        let model = try #require(Fixtures.read("pdb1ubi.pdb").firstModel)
        let trace = CalphaTrace(model: model, chainIndex: 0)
        let states = CalphaSecondaryStructure.assign(trace.positions)
        let dssp = model.computeSecondaryStructure()
        let chain = model.chains[0]
        let residues = chain.residueRange.filter { model.residues[$0].kind == .aminoAcid && model.atomIndex(named: "CA", inResidue: $0) != nil }
        #expect(residues.count == states.count)
        var agree = 0
        for (k, r) in residues.enumerated() {
            let three: CalphaSecondaryStructure.State = switch dssp[r].threeState { case "H": .helix; case "E": .strand; default: .coil }
            if three == states[k] { agree += 1 }
        }
        let ours = String(states.map { $0 == .helix ? "H" : $0 == .strand ? "E" : "-" })
        let theirs = String(residues.map { dssp[$0].threeState == "C" ? "-" : dssp[$0].threeState })
        // A rough rule without DSSP's hydrogen bonds: it misses the ends of elements (ubiquitin, 56 of 76).
        #expect(Double(agree) >= 0.7 * Double(states.count), "\(agree) of \(states.count)\n\(ours)\n\(theirs)")
        // The α-helix 23–34: DSSP's H, and ours for at least 9 of its 12 residues.
        let helix = residues.enumerated().filter { (23...34).contains(model.residues[$0.element].number) }.map(\.offset)
        #expect(helix.filter { states[$0] == .helix }.count >= 9, "\(ours)")
    }

    @Test("a mismatched pair fails with an error that names what is wrong")
    func errors() throws {
        let protein = try Fixtures.read("pdb1ubi.pdb")
        let ligand = try Fixtures.read("ATP.cif")
        #expect(throws: SuperpositionError.noProteinChain(side: "B")) { try Superposition.superpose(protein, onto: ligand) }
        #expect(throws: SuperpositionError.noProteinChain(side: "A")) { try Superposition.superpose(ligand, onto: protein) }
        #expect(throws: SuperpositionError.chainNotFound(side: "A", chain: "Q", available: ["A"])) {
            try Superposition.superpose(protein, onto: protein, options: .init(chainA: "Q"))
        }
        let message = SuperpositionError.chainNotFound(side: "A", chain: "Q", available: ["A"]).description
        #expect(message.contains("no chain 'Q'") && message.contains("A"))
        // Two residues are too few to fit.
        let model = try #require(protein.firstModel)
        let trace = CalphaTrace(model: model, chainIndex: 0)
        let two = CalphaTrace(chainID: "A", residues: Array(trace.residues.prefix(2)))
        #expect(throws: SuperpositionError.tooFewAlignedResidues(count: 2, needed: 3, chainA: "A", chainB: "A")) {
            try Superposition.superpose(two, onto: two, options: .init(pairing: .sequence))
        }
    }

    @Test("BLOSUM62 is symmetric with the published diagonal; alignment puts a gap where the insertion is")
    func sequenceAlignment() throws {
        for i in BLOSUM62.rows.indices {
            #expect(BLOSUM62.rows[i].count == BLOSUM62.alphabet.count)
            for j in BLOSUM62.rows.indices { #expect(BLOSUM62.rows[i][j] == BLOSUM62.rows[j][i]) }
        }
        #expect(BLOSUM62.alphabet.map { BLOSUM62.score($0, $0) } == [4, 5, 6, 6, 9, 5, 5, 6, 8, 4, 4, 5, 5, 6, 7, 4, 5, 11, 7, 4, 4, 4, -1])
        #expect(BLOSUM62.score("W", "C") == -2 && BLOSUM62.score("I", "V") == 3 && BLOSUM62.score("U", "C") == 9)
        let a = Array("MKTAYIAKQRQISFVKSHFSRQ"), b = Array("MKTAYIAKQRWWWWQISFVKSHFSRQ")
        let al = SequenceAlignment.align(a, b)
        #expect(al.count == a.count)
        #expect(SequenceAlignment.identities(al, a, b) == a.count)
        #expect(al.second == Array(0..<10) + Array(14..<26))
        // Free end gaps: a fragment aligns inside the chain at no cost.
        let frag = SequenceAlignment.align(Array("QISFVKSH"), b)
        #expect(frag.second == Array(14..<22))
        #expect(frag.score == Double(zip("QISFVKSH", "QISFVKSH").map { BLOSUM62.score($0, $1) }.reduce(0, +)))
        // The score-only pass gives the full alignment's score.
        let model = try #require(Fixtures.read("pdb1ake.pdb").firstModel)
        let adk = CalphaTrace(model: model, chainIndex: 0).sequence
        for (x, y) in [(a, b), (b, a), (Array("QISFVKSH"), b), (Array(adk.dropFirst(30)), adk), (adk, Array("GGGGWWWW")), (adk, Array(adk.reversed()))] {
            #expect(SequenceAlignment.score(x, y) == SequenceAlignment.align(x, y).score)
        }
    }
}
