import Geometry

/// Pairs the residues of two chains by where their Cα lie rather than by sequence, for chains whose
/// sequences say too little (a TM-align-like refinement: Zhang & Skolnick, Nucleic Acids Res.
/// 33:2302, 2005). From each starting superposition:
///
/// 1. score every residue pair (i of the moving chain, j of the target) as a TM-score term,
///    1/(1 + (dᵢⱼ/d₀)²) with d₀ of the shorter chain, after the current superposition;
/// 2. align by dynamic programming on those scores (gap opening 0.6, no extension cost, free end
///    gaps: TM-align's values), then find the superposition of the aligned pairs with the highest
///    TM-score normalised by the target's length (`TMScore.search`, coarse seeds);
/// 3. repeat from that superposition until the alignment stops changing (at most `iterations`
///    times), once with gap opening 0.6 and once with 0.
///
/// The starting superpositions are the caller's (the sequence-based fit); the best gapless
/// threading: each offset k pairing residue i with i + k wherever both exist (at least half of the
/// shorter chain overlapping), scored by `TMScore.quick`; and the best superposition of the pairs
/// that aligning the chains' helix/strand/coil states gives (`CalphaSecondaryStructure`). The
/// alignment with the highest TM-score wins; its pairs farther apart than TM-align's cutoff
/// (`TMScore.pairCutoff`) after its best superposition are dropped, as TM-align leaves them out of
/// its aligned length, RMSD and TM-score, and the TM-score is that of the pairs that remain.
public enum StructureAlignment {
    public struct Result: Sendable, Equatable {
        public var alignment: PairwiseAlignment
        /// TM-score normalised by the target chain's length, and its superposition.
        public var tmScore: Double
        public var transform: RigidTransform
    }

    public static let gapOpenings: [Double] = [0.6, 0]
    public static let iterations = 10
    /// Seed spacing of the coarse TM-score searches inside the iterations (TM-align uses 40).
    public static let coarseStep = 40

    public static func align(moving a: [SIMD3<Double>], target b: [SIMD3<Double>],
                             starts: [RigidTransform]) -> Result? {
        guard !a.isEmpty, !b.isEmpty else { return nil }
        let lengthB = b.count
        let d0Pairing = TMScore.d0(length: min(a.count, b.count))
        var seeds = starts
        if let threading = gaplessThreading(a, b) { seeds.append(threading) }
        let bySecondaryStructure = CalphaSecondaryStructure.align(CalphaSecondaryStructure.assign(a), CalphaSecondaryStructure.assign(b))
        if bySecondaryStructure.count >= 3 {
            seeds.append(TMScore.search(bySecondaryStructure.first.map { a[$0] }, bySecondaryStructure.second.map { b[$0] },
                                        normalisingLength: lengthB, step: coarseStep).transform)
        }
        var best: Result?
        for seed in seeds {
            for opening in gapOpenings {
                var transform = seed
                var previous: PairwiseAlignment?
                for _ in 0..<iterations {
                    let alignment = dynamicProgramming(a, b, transform: transform, d0: d0Pairing, gapOpening: opening)
                    if alignment.count < 3 || alignment == previous { break }
                    previous = alignment
                    let found = TMScore.search(alignment.first.map { a[$0] }, alignment.second.map { b[$0] },
                                               normalisingLength: lengthB, step: coarseStep)
                    if found.score > (best?.tmScore ?? -1) {
                        best = Result(alignment: alignment, tmScore: found.score, transform: found.transform)
                    }
                    transform = found.transform
                }
            }
        }
        guard var result = best else { return nil }
        // The winner's superposition searched in detail, then its far pairs dropped.
        let pa = result.alignment.first.map { a[$0] }, pb = result.alignment.second.map { b[$0] }
        let fine = TMScore.search(pa, pb, normalisingLength: lengthB, step: max(1, pa.count / 200))
        if fine.score > result.tmScore { result.tmScore = fine.score; result.transform = fine.transform }
        let cutoff = TMScore.pairCutoff(length: min(a.count, b.count))
        var first: [Int] = [], second: [Int] = []
        for (i, j) in result.alignment.pairs where distance(result.transform.apply(a[i]), b[j]) <= cutoff {
            first.append(i); second.append(j)
        }
        if first.count < result.alignment.count, first.count >= 3 {
            // The TM-score of the pairs that remain, as TM-align scores its pairs within d₈.
            let kept = TMScore.search(first.map { a[$0] }, second.map { b[$0] }, normalisingLength: lengthB,
                                      step: max(1, first.count / 200))
            result.tmScore = kept.score; result.transform = kept.transform
        }
        result.alignment = PairwiseAlignment(first: first, second: second, score: result.alignment.score)
        return result
    }

    /// The alignment that maximises the sum of TM-score terms after `transform`.
    static func dynamicProgramming(_ a: [SIMD3<Double>], _ b: [SIMD3<Double>], transform: RigidTransform,
                                   d0: Double, gapOpening: Double) -> PairwiseAlignment {
        let moved = a.map(transform.apply)
        let d0s = d0 * d0
        var scores = [Double](repeating: 0, count: a.count * b.count)
        for i in moved.indices {
            for j in b.indices { scores[i * b.count + j] = 1 / (1 + lengthSquared(moved[i] - b[j]) / d0s) }
        }
        return PairwiseAlignment.align(rows: a.count, columns: b.count, scores: scores,
                                       gaps: .init(open: gapOpening, extend: 0))
    }

    /// The superposition of the best gapless threading, nil when the chains are too short.
    static func gaplessThreading(_ a: [SIMD3<Double>], _ b: [SIMD3<Double>]) -> RigidTransform? {
        let shortest = min(a.count, b.count)
        let minimumOverlap = max(3, shortest / 2)
        guard shortest >= 3 else { return nil }
        var best: TMScore.Best?
        // Offset k pairs a[i] with b[i + k].
        for k in (-(a.count - minimumOverlap))...(b.count - minimumOverlap) {
            let lo = max(0, -k), hi = min(a.count, b.count - k)
            guard hi - lo >= minimumOverlap else { continue }
            let found = TMScore.quick(Array(a[lo..<hi]), Array(b[(lo + k)..<(hi + k)]), normalisingLength: b.count)
            if found.score > (best?.score ?? -1) { best = found }
        }
        return best?.transform
    }
}
