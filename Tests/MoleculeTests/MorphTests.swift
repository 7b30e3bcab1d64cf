import Foundation
import Testing
@testable import Molecule

/// Morph (Sources/Molecule/Superposition/Morph.swift) on adenylate kinase closed (1AKE) into open
/// (4AKE, as MDAnalysis's CHARMM file): the ends are the two structures, bonds stay in range, the
/// clash rule is counted, and bad requests say what is wrong. The checkers' view of the frames and
/// of the GLB animation is scripts/checks/test_morph.py.
@Suite("Morph")
struct MorphTests {
    @Test("frame 1 is the first structure's chain, the last the other's conformation superposed; bonds within 5 % throughout")
    func endsAndBonds() throws {
        let closed = try Fixtures.read("pdb1ake.pdb"), open = try Fixtures.read("adk_open.pdb.gz")
        let morph = try Morph.morph(from: closed, to: open, options: .init(frames: 8))
        #expect(morph.frames == 8)
        #expect(morph.structure.models.map(\.number) == Array(1...8))
        // Every atom of 1AKE's chain A but its five OXT-less/alternate extras pairs with the open form's.
        #expect(morph.atoms > 1600 && morph.unpaired < 20, "\(morph.atoms) paired, \(morph.unpaired) not")
        let model = try #require(closed.firstModel)
        let first = morph.structure.models[0]
        for (k, source) in morph.sourceAtoms.enumerated() {
            #expect(first.atoms.positions[k] == model.atoms.positions[source])
            #expect(first.atoms.names[k] == model.atoms.names[source])
        }
        // The last frame is the open form moved rigidly: superposing it on the open form leaves nothing.
        let last = Structure.withModel(morph.structure.models[7])
        let back = try Superposition.superpose(last, onto: open)
        #expect(back.alignedLength == 214 && back.rmsdAll < 0.01, "\(back.rmsdAll)")
        #expect(morph.worstBondChange < 0.05, "\(morph.worstBondChange)")
        #expect(morph.worstLinearBondChange > morph.worstBondChange)
        #expect(morph.clashes.count == 8)
        #expect(morph.clashes.allSatisfy { $0 <= 10 }, "\(morph.clashes)")
    }

    @Test("the frames move steadily: each a little farther from the first and nearer the last")
    func steady() throws {
        let morph = try Morph.morph(from: try Fixtures.read("pdb1ake.pdb"), to: try Fixtures.read("adk_open.pdb.gz"), options: .init(frames: 6))
        func rmsd(_ a: Model, _ b: Model) -> Double {
            let sum = zip(a.atoms.positions, b.atoms.positions).reduce(0.0) { $0 + Double(((($1.0 - $1.1) * ($1.0 - $1.1))).sum()) }
            return (sum / Double(a.atoms.count)).squareRoot()
        }
        let models = morph.structure.models
        let fromFirst = models.map { rmsd($0, models[0]) }, toLast = models.map { rmsd($0, models[5]) }
        #expect(zip(fromFirst, fromFirst.dropFirst()).allSatisfy { $0 < $1 }, "\(fromFirst)")
        #expect(zip(toLast, toLast.dropFirst()).allSatisfy { $0 > $1 }, "\(toLast)")
    }

    @Test("bad requests: too few frames, no protein, different proteins")
    func errors() throws {
        let closed = try Fixtures.read("pdb1ake.pdb")
        #expect(throws: MorphError.frames(1, most: Morph.mostFrames)) { try Morph.morph(from: closed, to: closed, options: .init(frames: 1)) }
        #expect(throws: MorphError.superposition(.noProteinChain(side: "A"))) { try Morph.morph(from: closed, to: try Fixtures.read("ATP.cif")) }
        #expect(MorphError.tooFewAtoms(2).description.contains("same protein"))
    }

    @Test("the clash rule: backbone atoms of residues two apart nearer than 3.0 Å (2.6 Å for N and O)")
    func clashRule() throws {
        var model = Model(number: 1)
        let names = ["N", "CA", "O"]
        for (r, x) in [Float(0), 10, 2.8].enumerated() {
            let start = Int32(model.atoms.count)
            for (k, name) in names.enumerated() {
                model.atoms.append(Atom(name: name, element: name == "N" ? .nitrogen : name == "O" ? .oxygen : .carbon,
                                        position: SIMD3(x, Float(k) * 20, 0)))
            }
            model.residues.append(Residue(name: "GLY", number: Int32(r + 1), atomStart: start, atomEnd: Int32(model.atoms.count)))
        }
        model.chains = [Chain(id: "A", residueStart: 0, residueEnd: 3)]
        // Residues 1 and 3 are 2.8 Å apart: N–N, CA–CA and O–O clash (3.0 Å); nothing is near residue 2.
        #expect(BackboneClash.count(in: model) == 3)
        #expect(BackboneClash.minimumDistance(nitrogenAndOxygen: true) == 2.6)
    }
}

extension Structure {
    static func withModel(_ model: Model) -> Structure {
        var s = Structure()
        s.models = [model]
        return s
    }
}
