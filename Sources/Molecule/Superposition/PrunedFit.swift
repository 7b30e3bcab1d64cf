import Geometry

/// A least-squares fit with iterative outlier rejection, as ChimeraX's matchmaker prunes pairs
/// (Meng et al., BMC Bioinformatics 7:339, 2006; ChimeraX `align … cutoffDistance`): fit every
/// pair, then repeatedly drop the pairs that lie farthest apart and refit, until no kept pair is
/// farther apart than the cutoff.
///
/// Each cycle drops the lesser of 10 % of the pairs still kept and half of those beyond the
/// cutoff (at least one), farthest first, so a few bad pairs do not drag a fit on which many good
/// ones would agree. It stops when every kept pair is within the cutoff, after `maximumCycles`,
/// or before the kept pairs would fall below `minimumFraction` of all pairs (or three).
public struct PrunedFit: Sendable {
    public struct Rule: Sendable, Equatable {
        /// Å: pairs farther apart than this after a fit are candidates to drop.
        public var cutoff: Double
        public var maximumCycles: Int
        /// The least share of the pairs that is kept, whatever their distances.
        public var minimumFraction: Double

        public init(cutoff: Double = 2.0, maximumCycles: Int = 20, minimumFraction: Double = 0.5) {
            self.cutoff = cutoff; self.maximumCycles = maximumCycles; self.minimumFraction = minimumFraction
        }

        public static let matchmaker = Rule()
    }

    /// Moves the first set onto the second (fitted to the kept pairs).
    public var transform: RigidTransform
    /// Indices of the pairs kept, increasing.
    public var kept: [Int]
    /// RMSD of the kept pairs, Å.
    public var rmsd: Double
    /// RMSD of all pairs after `transform`, Å.
    public var rmsdAll: Double
    /// RMSD of all pairs after their own best fit (the first cycle's), Å.
    public var rmsdAllFitted: Double
    /// Cycles of dropping and refitting done.
    public var cycles: Int

    /// Nil when there are no pairs.
    public init?(_ moving: [SIMD3<Double>], _ target: [SIMD3<Double>], rule: Rule = .matchmaker) {
        guard let first = KabschFit.fit(moving, target) else { return nil }
        let total = moving.count
        let floor = max(min(3, total), Int((rule.minimumFraction * Double(total)).rounded(.up)))
        var kept = Array(moving.indices), fit = first, cycles = 0
        while cycles < rule.maximumCycles {
            let distances = kept.map { (index: $0, d: distance(fit.transform.apply(moving[$0]), target[$0])) }
            let far = distances.filter { $0.d > rule.cutoff }.sorted { $0.d > $1.d || ($0.d == $1.d && $0.index < $1.index) }
            if far.isEmpty { break }
            var drop = max(1, min(kept.count / 10, (far.count + 1) / 2))
            drop = min(drop, kept.count - floor)
            if drop <= 0 { break }
            let dropped = Set(far.prefix(drop).map(\.index))
            kept.removeAll { dropped.contains($0) }
            guard let refit = KabschFit.fit(moving, target, indices: kept) else { break }
            fit = refit
            cycles += 1
        }
        transform = fit.transform
        self.kept = kept
        rmsd = fit.rmsd
        rmsdAll = KabschFit.rmsd(moving, target, transform: fit.transform)
        rmsdAllFitted = first.rmsd
        self.cycles = cycles
    }
}
