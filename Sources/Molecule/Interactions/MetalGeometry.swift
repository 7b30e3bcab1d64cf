import Geometry

/// Which of a metal's near atoms coordinate it, by the geometry they make (PLIP's method): every
/// ideal geometry from six partners down to two is fitted to the observed angles between the
/// partners as seen from the metal; the one chosen leaves out the atoms it has no place for.
enum MetalGeometry {
    /// Ideal angles between one partner and the others, per position of each geometry.
    static let geometries: [(coordination: Int, name: String, positions: [[Float]])] = [
        (6, "octahedral", Array(repeating: [90, 90, 90, 90, 180], count: 6)),
        (5, "trigonal bipyramidal", Array(repeating: [120, 120, 90, 90], count: 3) + Array(repeating: [90, 90, 90, 180], count: 2)),
        (5, "square pyramidal", Array(repeating: [90, 90, 90, 180], count: 4) + [[90, 90, 90, 90]]),
        (4, "tetrahedral", Array(repeating: [109.5, 109.5, 109.5, 109.5], count: 4)),
        (4, "square planar", Array(repeating: [90, 90, 90, 90], count: 4)),
        (3, "trigonal planar", Array(repeating: [120, 120], count: 3)),
        (3, "trigonal pyramidal", Array(repeating: [109.5, 109.5], count: 3)),
        (2, "linear", Array(repeating: [180], count: 2)),
    ]

    /// The partners (indices into `targets`) the best-fitting geometry keeps.
    static func coordinating(metal: SIMD3<Float>, targets: [SIMD3<Float>]) -> [Int] {
        let n = targets.count
        guard n > 1 else { return Array(0..<n) }
        let vectors = targets.map { $0 - metal }
        let observed = (0..<n).map { i in (0..<n).filter { $0 != i }.map { degrees(between: vectors[i], vectors[$0]) } }
        struct Fit { var rms: Float; var excluded: Set<Int>; var surplus: Int }
        var fits: [Fit] = geometries.map { geometry in
            var used: [Int] = []
            var scores: [Float] = []
            for ideal in geometry.positions {
                var best: (target: Int, score: Float)?
                for t in 0..<n where !used.contains(t) {
                    var left = observed[t]
                    var squares: Float = 0
                    for angle in ideal {
                        guard let k = left.indices.min(by: { abs(left[$0] - angle) < abs(left[$1] - angle) }) else { break }
                        squares += (left[k] - angle) * (left[k] - angle)
                        left.remove(at: k)
                    }
                    let score = squares.squareRoot()
                    if best == nil || score < best?.score ?? .infinity { best = (t, score) }
                }
                if let best { used.append(best.target); scores.append(best.score) } else { scores.append(999) }
            }
            let rms = scores.reduce(0, +) / Float(max(scores.count, 1))
            return Fit(rms: rms, excluded: Set(0..<n).subtracting(used), surplus: abs(n - geometry.coordination))
        }
        // The geometry nearest in partner count, unless the next is almost as good (0.5° of RMS) and
        // good (under 3.5°); when none decides, every partner stays.
        fits = fits.enumerated().sorted { ($0.element.surplus, $0.offset) < ($1.element.surplus, $1.offset) }.map(\.element)
        for i in 0..<(fits.count - 1) {
            let this = fits[i], next = fits[i + 1]
            if next.rms - this.rms > 0.5 { return (0..<n).filter { !this.excluded.contains($0) } }
            if next.rms < 3.5 { return (0..<n).filter { !next.excluded.contains($0) } }
        }
        return Array(0..<n)
    }
}
