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

    @Test("a chain break stops helices and ladders")
    func chainBreak() throws {
        let s = try Fixtures.read("pdb1ubi.pdb")
        let model = try #require(s.firstModel)
        var (backbone, _) = model.backboneResidues()
        // Move the second half 50 Å away: no hydrogen bond may cross the gap.
        for i in (backbone.count / 2)..<backbone.count {
            backbone[i].n.x += 50; backbone[i].ca.x += 50; backbone[i].c.x += 50; backbone[i].o.x += 50
        }
        let codes = DSSP.assign(backbone)
        #expect(codes.count == backbone.count)
        #expect(codes[backbone.count / 2] != .alphaHelix || codes[backbone.count / 2 - 1] != .alphaHelix)
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
