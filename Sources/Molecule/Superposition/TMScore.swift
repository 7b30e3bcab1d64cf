import Foundation
import Geometry

/// TM-score (Zhang & Skolnick, Proteins 57:702, 2004): over the aligned Cα pairs after a
/// superposition, Σ 1/(1 + (dᵢ/d₀)²) divided by the length L of the chain it is normalised by,
/// with d₀(L) = 1.24·∛(L − 15) − 1.8 Å (0.5 Å for L ≤ 21). It is a maximum over superpositions,
/// so `search` looks for the superposition that gives the most, as the TM-score program and TM-align
/// do: each seed is a run of consecutive aligned pairs (the whole alignment, then halves, quarters…
/// down to four pairs), fitted, then refitted to the pairs within a distance cutoff until that set
/// stops changing.
public enum TMScore {
    /// d₀ for a chain of `length` residues, Å.
    public static func d0(length: Int) -> Double {
        guard length > 21 else { return 0.5 }
        return max(0.5, 1.24 * cbrt(Double(length - 15)) - 1.8)
    }

    /// TM-align's cutoff beyond which a pair after the final superposition is not counted as aligned
    /// (its "score_d8"): 1.5·L^0.3 + 3.5 Å for the shorter chain's length L.
    public static func pairCutoff(length: Int) -> Double { 1.5 * pow(Double(max(1, length)), 0.3) + 3.5 }

    /// The TM-score of the pairs (moving[k], target[k]) after `transform`.
    public static func score(_ moving: [SIMD3<Double>], _ target: [SIMD3<Double>], transform: RigidTransform,
                             normalisingLength: Int, d0: Double) -> Double {
        guard normalisingLength > 0 else { return 0 }
        let d0s = d0 * d0
        var sum = 0.0
        for k in moving.indices { sum += 1 / (1 + lengthSquared(transform.apply(moving[k]) - target[k]) / d0s) }
        return sum / Double(normalisingLength)
    }

    /// A quick estimate for ranking many candidate alignments (as TM-align's `get_score_fast`): the
    /// whole alignment as the only seed, fitted and refitted twice to the pairs within the cutoff.
    public static func quick(_ moving: [SIMD3<Double>], _ target: [SIMD3<Double>], normalisingLength: Int) -> Best {
        search(moving, target, normalisingLength: normalisingLength, fragments: false, iterations: 3)
    }

    public struct Best: Sendable, Equatable {
        public var score: Double
        public var transform: RigidTransform
    }

    /// The superposition of the pairs (moving[k], target[k]) with the highest TM-score normalised by
    /// `normalisingLength` (d₀ from that length unless given). `step` spaces the seeds of each length
    /// (1 tries every start; larger is faster and coarser); `iterations` bounds each seed's refits;
    /// without `fragments` the whole alignment is the only seed.
    public static func search(_ moving: [SIMD3<Double>], _ target: [SIMD3<Double>], normalisingLength: Int,
                              d0: Double? = nil, step: Int = 1, fragments: Bool = true, iterations: Int = 20) -> Best {
        let n = moving.count
        let d0 = d0 ?? Self.d0(length: normalisingLength)
        var best = Best(score: 0, transform: .identity)
        guard n > 0, normalisingLength > 0 else { return best }
        // The refit cutoff: d₀ held between 4.5 and 8 Å, as TM-align's d0_search.
        let searchCutoff = min(8, max(4.5, d0))
        let d0s = d0 * d0
        var lengths: [Int] = []
        var l = n
        let shortest = min(n, 4)
        while l > shortest { lengths.append(l); l /= 2 }
        lengths.append(shortest)
        if !fragments { lengths = [n] }
        var distances = [Double](repeating: 0, count: n)
        func evaluate(_ t: RigidTransform) -> Double {
            var sum = 0.0
            for k in 0..<n {
                let d2 = lengthSquared(t.apply(moving[k]) - target[k])
                distances[k] = d2.squareRoot()
                sum += 1 / (1 + d2 / d0s)
            }
            return sum / Double(normalisingLength)
        }
        func within(_ cutoff: Double) -> [Int] {
            var c = cutoff
            var picked = (0..<n).filter { distances[$0] < c }
            // At least three pairs to fit (or all when fewer).
            while picked.count < min(3, n) { c += 0.5; picked = (0..<n).filter { distances[$0] < c } }
            return picked
        }
        var seen = Set<[Int]>()
        for length in lengths {
            let starts = Array(stride(from: 0, through: n - length, by: max(1, step))) + [n - length]
            for start in Set(starts).sorted() {
                var picked = Array(start..<(start + length))
                var cutoff = searchCutoff - 1
                for iteration in 0..<iterations {
                    guard let fit = KabschFit.fit(moving, target, indices: picked) else { break }
                    let s = evaluate(fit.transform)
                    if s > best.score { best = Best(score: s, transform: fit.transform) }
                    let next = within(cutoff)
                    if iteration > 0 && next == picked { break }
                    // A set already refitted from elsewhere leads where it led before.
                    if iteration > 0 && !seen.insert(next).inserted { break }
                    picked = next
                    cutoff = searchCutoff + 1
                }
            }
        }
        return best
    }
}
