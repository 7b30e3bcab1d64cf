import Foundation
import Molecule
import Testing
@testable import ProteinDesign

/// The pieces before Try (`ProteinDesigner.pieceLayout`): one chain per piece, ideal, side by side.
@Suite("Piece layout")
struct PieceLayoutTests {
    static func positions(_ model: Model, chain: Chain) -> [SIMD3<Double>] {
        chain.residueRange.flatMap { r in
            model.residues[r].atomRange.map { i in
                let p = model.atoms.positions[i]
                return SIMD3(Double(p.x), Double(p.y), Double(p.z))
            }
        }
    }

    @Test("one chain per piece, residue counts and names as the design's, numbered as in the joined chain")
    func chains() throws {
        let spec = try DesignSpec(parsing: "helix:14,coil:4,strand:6,rigid-coil:3,helix:1")
        let structure = ProteinDesigner.pieceLayout(spec)
        let model = try #require(structure.models.first)
        #expect(model.chains.map(\.id) == ["A", "B", "C", "D", "E"])
        #expect(model.chains.map(\.residueCount) == [14, 4, 6, 3, 1])
        #expect(model.residues.map(\.number) == (1...28).map { Int32($0) })
        let joined = ProteinDesigner.build(spec)
        #expect(model.residues.map(\.name) == joined.structure.models[0].residues.map(\.name))
        // Every atom, as in the design: backbone, CB and side chains.
        #expect(model.atoms.count == joined.structure.models[0].atoms.count)
        // The kinds show in the records: the helices and the strand, not the coils.
        let codes = structure.secondaryStructure()
        #expect(codes[0..<14].allSatisfy { $0.threeState == "H" } && codes[18..<24].allSatisfy { $0.threeState == "E" })
        #expect(codes[14..<18].allSatisfy { $0.threeState == "C" } && codes[24..<27].allSatisfy { $0.threeState == "C" })
    }

    @Test("pieces stand apart: no atom of one piece within the gap of another's, in the pieces' order along x")
    func apart() throws {
        let spec = try DesignSpec(parsing: "strand:6,coil:2,strand:6,helix:20,coil:12,coil:12")
        let model = ProteinDesigner.pieceLayout(spec).models[0]
        let pieces = model.chains.map { Self.positions(model, chain: $0) }
        for a in pieces.indices {
            for b in pieces.indices where b > a {
                let closest = pieces[a].lazy.flatMap { p in pieces[b].lazy.map { q in ((p - q) * (p - q)).sum().squareRoot() } }.min() ?? 0
                #expect(closest >= ProteinDesigner.pieceGap - 1e-3, "pieces \(a + 1) and \(b + 1) are \(closest) Å apart")
            }
        }
        let centres = pieces.map { $0.reduce(.zero, +) / Double($0.count) }
        #expect(zip(centres, centres.dropFirst()).allSatisfy { $0.x < $1.x })
        // The row is centred on the origin.
        let xs = pieces.joined().map(\.x)
        #expect(abs((xs.min() ?? 0) + (xs.max() ?? 0)) < 1e-3)
    }

    @Test("each piece keeps its ideal geometry; the same spec gives the same coordinates; the seed plays no part")
    func idealAndFixed() throws {
        let spec = try DesignSpec(parsing: "helix:14,coil:4,helix:14", seed: 1)
        let first = ProteinDesigner.pieceLayout(spec).models[0]
        let again = ProteinDesigner.pieceLayout(try DesignSpec(parsing: "helix:14,coil:4,helix:14", seed: 99)).models[0]
        #expect(first.atoms.positions == again.atoms.positions)
        // Helix torsions are the ideal ones within the first piece.
        let helix = Self.positions(first, chain: first.chains[0])
        func atom(_ residue: Int, _ name: String) -> SIMD3<Double> {
            let p = first.atoms.positions[first.atomIndex(named: name, inResidue: residue) ?? 0]
            return SIMD3(Double(p.x), Double(p.y), Double(p.z))
        }
        // AEELLKK twice: backbone and CB (5 each), plus CG, CD, OE1, OE2 (Glu), CG, CD1, CD2 (Leu), CG, CD, CE, NZ (Lys).
        #expect(helix.count == 14 * 5 + 4 * (4 + 3 + 4))
        for r in 1..<13 {
            #expect(abs(dihedralDegrees(atom(r - 1, "C"), atom(r, "N"), atom(r, "CA"), atom(r, "C")) - -57) < 0.5)
            #expect(abs(dihedralDegrees(atom(r, "N"), atom(r, "CA"), atom(r, "C"), atom(r + 1, "N")) - -47) < 0.5)
        }
        // A helix stands along y: its first residue low, its last high.
        #expect(atom(0, "CA").y < atom(13, "CA").y - 10)
    }

    @Test("chain ids stay unique for many pieces")
    func manyPieces() {
        let ids = (0..<2_000).map(ProteinDesigner.pieceChainID)
        #expect(Set(ids).count == ids.count)
    }
}
