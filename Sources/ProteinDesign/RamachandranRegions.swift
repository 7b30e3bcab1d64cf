import Foundation
import Molecule

/// Where a coil residue's φ/ψ may go: boxes around the populated regions of the Ramachandran plot
/// (β, polyproline II, right-handed α and the bridge region beside it; left-handed α for glycine,
/// asparagine and aspartate; the regions with φ > 0 that only glycine reaches, among them the first
/// turn residue of a type II' β-turn; proline's φ held near −65°).
struct RamachandranRegion {
    var phi: Double, psi: Double      // centre, degrees
    var phiSpread: Double, psiSpread: Double
    var weight: Double

    static let beta = RamachandranRegion(phi: -120, psi: 130, phiSpread: 25, psiSpread: 25, weight: 0.35)
    static let polyproline = RamachandranRegion(phi: -70, psi: 145, phiSpread: 15, psiSpread: 15, weight: 0.3)
    static let alphaRight = RamachandranRegion(phi: -63, psi: -42, phiSpread: 12, psiSpread: 12, weight: 0.25)
    static let alphaLeft = RamachandranRegion(phi: 60, psi: 40, phiSpread: 12, psiSpread: 15, weight: 0.1)
    static let glycineTurn = RamachandranRegion(phi: 85, psi: 0, phiSpread: 15, psiSpread: 20, weight: 0.2)
    static let glycineExtended = RamachandranRegion(phi: 80, psi: -160, phiSpread: 20, psiSpread: 20, weight: 0.15)
    static let glycineTurnII = RamachandranRegion(phi: 60, psi: -120, phiSpread: 15, psiSpread: 15, weight: 0.2)
    static let bridge = RamachandranRegion(phi: -90, psi: 0, phiSpread: 20, psiSpread: 20, weight: 0.15)

    static func regions(for residue: Character) -> [RamachandranRegion] {
        switch residue {
        case "G":
            var left = alphaLeft
            left.weight = 0.3
            return [beta, polyproline, alphaRight, bridge, left, glycineTurn, glycineExtended, glycineTurnII]
        case "P":
            return [RamachandranRegion(phi: -65, psi: 145, phiSpread: 8, psiSpread: 15, weight: 0.6),
                    RamachandranRegion(phi: -65, psi: -35, phiSpread: 8, psiSpread: 12, weight: 0.4)]
        case "N", "D":
            return [beta, polyproline, alphaRight, bridge, alphaLeft]
        default:
            return [beta, polyproline, alphaRight, bridge]
        }
    }

    /// The two middle residues of the common β-turns (φ, ψ in degrees): I', II' (the tight turns of
    /// β-hairpins), I and II. Tried first for two-residue coils, then the search samples and refines.
    static let twoResidueTurns: [[(Double, Double)]] = [
        [(60, 30), (90, 0)], [(60, -120), (-80, 0)], [(-60, -30), (-90, 0)], [(-60, 120), (80, 0)],
    ]

    /// The first two residues of the strand after a hairpin turn (φ, ψ in degrees): the ideal
    /// strand, and the twisted starts that let a flat strand run back beside its partner.
    static let hairpinFlanks: [[(Double, Double)]] = [
        [(-139, 135), (-139, 135)], [(-100, 110), (-110, 140)], [(-120, 130), (-120, 130)], [(-110, 160), (-130, 130)],
    ]

    /// A random (φ, ψ) in radians from one of `regions`, chosen by weight.
    static func sample(_ regions: [RamachandranRegion], using random: inout SeededGenerator) -> (Double, Double) {
        let total = regions.reduce(0) { $0 + $1.weight }
        var pick = Double.random(in: 0..<total, using: &random)
        var region = regions[regions.count - 1]
        for r in regions {
            if pick < r.weight { region = r; break }
            pick -= r.weight
        }
        let phi = region.phi + Double.random(in: -region.phiSpread...region.phiSpread, using: &random)
        let psi = region.psi + Double.random(in: -region.psiSpread...region.psiSpread, using: &random)
        return (radians(phi), radians(psi))
    }
}
