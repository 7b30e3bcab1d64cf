import Foundation
import Testing
@testable import Molecule

/// The built-in DSSP against mkdssp 4.2.2's output for the shared proteins (Tests/Fixtures/dssp):
/// all eight states, residue by residue.
@Suite("DSSP")
struct DSSPTests {
    static let reference: [(String, String)] = {
        let url = Fixtures.root.appendingPathComponent("dssp/mkdssp.tsv")
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { line in
            let f = line.split(separator: "\t")
            return f.count == 2 ? (String(f[0]), String(f[1])) : nil
        }
    }()

    static func file(for name: String) -> String {
        for ext in [".pdb", ".cif", ".pdb.gz", ".cif.gz"] where FileManager.default.fileExists(atPath: Fixtures.structures.appendingPathComponent(name + ext).path) {
            return name + ext
        }
        return name + ".cif"
    }

    @Test("eight-state agreement with mkdssp", arguments: reference.map(\.0))
    func matchesMkdssp(name: String) throws {
        let expected = try #require(Self.reference.first { $0.0 == name }?.1)
        let s = try Fixtures.read(Self.file(for: name))
        let model = try #require(s.firstModel)
        let codes = model.computeSecondaryStructure()
        let (_, indices) = model.backboneResidues()
        let ours = String(indices.map { codes[$0].letter })
        #expect(ours.count == expected.count)
        let same = zip(ours, expected).filter { $0 == $1 }.count
        #expect(same == expected.count, "\(name): \(same)/\(expected.count) residues agree")
    }

    /// Residues of a helix turn the chain at a break cannot span: the first residue after the break
    /// can be in no helix (H, G, I) and no turn (T), because each of those needs a hydrogen bond
    /// from a residue before the break to one after it, within one stretch of chain.
    static let spanning: Set<SecondaryStructureCode> = [.alphaHelix, .helix310, .piHelix, .turn]

    @Test("a chain break stops helices: by chain index, and where the peptide bond is missing")
    func chainBreak() throws {
        let s = try Fixtures.read("pdb1ubi.pdb")
        let model = try #require(s.firstModel)
        let (backbone, _) = model.backboneResidues()
        let whole = DSSP.assign(backbone)
        // Ubiquitin's α-helix (residues 23-34): cut it in the middle.
        let helix = try #require(Self.longestRun(of: .alphaHelix, in: whole))
        try #require(helix.count >= 10, "ubiquitin's helix: \(helix)")
        let cut = helix.lowerBound + helix.count / 2
        #expect(whole[cut - 1] == .alphaHelix && whole[cut] == .alphaHelix)

        // The same coordinates, the second part another chain: every hydrogen bond is still there,
        // but no helix crosses from one chain to the other.
        var twoChains = backbone
        for i in cut..<twoChains.count { twoChains[i].chainIndex = 1 }
        let split = DSSP.assign(twoChains)
        #expect(split.count == backbone.count)
        #expect(!Self.spanning.contains(split[cut]), "first residue of the second chain: \(split[cut].letter)")
        #expect(split[..<(cut - 5)] == whole[..<(cut - 5)], "far from the break nothing changes")

        // One residue of the helix left out: C(i-1) to N(i) is far more than a peptide bond, the
        // chain is broken there, and what follows starts afresh.
        var gapped = backbone
        gapped.remove(at: cut)
        let distance = gapped[cut].n - gapped[cut - 1].c
        try #require((distance * distance).sum().squareRoot() > 2.5)
        let broken = DSSP.assign(gapped)
        #expect(broken.count == gapped.count)
        #expect(!Self.spanning.contains(broken[cut]), "first residue after the gap: \(broken[cut].letter)")
    }

    static func longestRun(of code: SecondaryStructureCode, in codes: [SecondaryStructureCode]) -> Range<Int>? {
        var best: Range<Int>?
        var start: Int?
        for i in 0...codes.count {
            if i < codes.count && codes[i] == code {
                if start == nil { start = i }
            } else if let s = start {
                if (best?.count ?? 0) < i - s { best = s..<i }
                start = nil
            }
        }
        return best
    }

    @Test("degenerate input does not crash")
    func degenerate() {
        #expect(DSSP.assign([]).isEmpty)
        let p = SIMD3<Float>(repeating: 0)
        let same = Array(repeating: BackboneResidue(n: p, ca: p, c: p, o: p, isProline: false, chainIndex: 0), count: 20)
        #expect(DSSP.assign(same).count == 20)
        let nan = SIMD3<Float>(repeating: .nan)
        #expect(DSSP.assign(Array(repeating: BackboneResidue(n: nan, ca: nan, c: nan, o: nan, isProline: false, chainIndex: 0), count: 5)).count == 5)
    }
}
