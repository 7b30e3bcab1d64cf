import Foundation
import Molecule
import MoleculeMesh
import SceneExport

/// What a request with a partner (`compare=`, `morph=`, or the comparison JSON) makes of two files:
/// the one place the library superposes and morphs, so the JSON, the two-structure scene and the
/// morph's frames agree.
enum Comparisons {
    /// The request's output made of `structure` and its partner `other`.
    /// `names`: how people know the two (an entry's id, an upload's file name), for the answer's words.
    static func make(_ structure: Structure, id: String, with other: Structure, names: (String, String), request: ModelRequest) throws -> [UInt8] {
        guard let partner = request.options.partner else { throw LibraryError.badRequest("no molecule to compare with") }
        do {
            switch (request.output, partner.use) {
            case (.comparison, _):
                let fit = try Superposition.superpose(other, onto: structure)
                let morph = try Morph.morph(from: structure, to: other)
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys]
                return Array(try encoder.encode(ComparisonAnswer(fit, morph: morph, molecule: id, with: partner.id, names: names)))
            case (.identify, _), (.interactions, _):
                throw LibraryError.badRequest("\(partner.use.rawValue): only a model or the comparison has a second molecule")
            case (_, .compare):
                let fit = try Superposition.superpose(other, onto: structure)
                return LibraryService.encode(try ComparisonScene.compare(structure, with: other, superposition: fit, options: request.options).0,
                                             as: request.output)
            case (_, .morph):
                let morph = try Morph.morph(from: structure, to: other)
                return LibraryService.encode(try ComparisonScene.morph(morph, options: request.options).0, as: request.output)
            }
        } catch let error as SuperpositionError {
            throw LibraryError.badRequest("compare with \(partner.id): \(error)")
        } catch let error as MorphError {
            throw LibraryError.badRequest("morph into \(partner.id): \(error)")
        } catch let error as MeshOptionError {
            throw LibraryError.badRequest(error.description)
        }
    }
}

/// How another molecule superposes on this one, and their morph, as `GET
/// /api/molecules/{id}/compare?with=` answers: the chains paired, the fit's figures, the two
/// colours a `compare=` model draws them in, and the morph's frames with its checks.
public struct ComparisonAnswer: Encodable, Sendable {
    public struct Colors: Encodable, Sendable { public var molecule: String; public var with: String }
    public struct MorphFigures: Encodable, Sendable {
        public var frames: Int
        public var atoms: Int
        /// Atoms of each chain with no partner in the other (ligands, waters, hydrogens, missing side chains).
        public var unpaired: Int
        public var withUnpaired: Int
        /// Largest change of a bond's length (a fraction of it) in plain linear frames, and in the morph's.
        public var worstLinearBondChange: Double
        public var worstBondChange: Double
        /// Backbone clashes in each frame (the builder's rule).
        public var clashes: [Int]
    }

    public var molecule: String
    public var with: String
    public var chain: String
    public var withChain: String
    public var pairing: String
    public var alignedResidues: Int
    public var keptResidues: Int
    public var rmsd: Double
    public var rmsdAll: Double
    public var tmScore: Double
    public var sequenceIdentity: Double
    public var colors: Colors
    public var morph: MorphFigures
    public var words: String

    init(_ fit: SuperpositionResult, morph: Morph.Result, molecule: String, with: String, names: (String, String)) {
        func round(_ x: Double, _ places: Double = 1000) -> Double { (x * places).rounded() / places }
        self.molecule = molecule
        self.with = with
        chain = fit.chainB
        withChain = fit.chainA
        pairing = fit.pairing.rawValue
        alignedResidues = fit.alignedLength
        keptResidues = fit.keptLength
        rmsd = round(fit.rmsd)
        rmsdAll = round(fit.rmsdAll)
        tmScore = round(fit.tmScore)
        sequenceIdentity = round(fit.sequenceIdentity)
        colors = Colors(molecule: ComparisonScene.hex(ComparisonScene.colors.first), with: ComparisonScene.hex(ComparisonScene.colors.other))
        self.morph = MorphFigures(frames: morph.frames, atoms: morph.atoms, unpaired: morph.unpaired, withUnpaired: morph.otherUnpaired,
                                  worstLinearBondChange: round(morph.worstLinearBondChange, 10_000),
                                  worstBondChange: round(morph.worstBondChange, 10_000), clashes: morph.clashes)
        func named(_ id: String) -> String { id.trimmingCharacters(in: .whitespaces).isEmpty ? "" : " chain \(id)" }
        words = "\(names.1)\(named(fit.chainA)) on \(names.0)\(named(fit.chainB)): \(fit.alignedLength) residues aligned "
            + "(\(Int((fit.sequenceIdentity * 100).rounded()))% identical); RMSD \(String(format: "%.1f", fit.rmsdAll)) Å over all, "
            + "\(String(format: "%.1f", fit.rmsd)) Å over the \(fit.keptLength) that fit best; TM-score \(String(format: "%.2f", fit.tmScore))"
    }
}
