import Geometry

/// Helix, strand or coil for each residue of a Cα trace from Cα distances alone (TM-align's rule,
/// Zhang & Skolnick 2005): a residue i is in a helix when the Cα–Cα distances across the five
/// residues i−2 … i+2 are those of an ideal α-helix (i to i+2: 5.45 Å, i to i+3: 5.18 Å, i to i+4:
/// 6.37 Å) within 2.1 Å, and in a strand when they are those of an ideal strand (6.1, 10.4 and
/// 13.0 Å) within 1.42 Å. Used only to find a starting superposition for pairing by structure:
/// DSSP (`computeSecondaryStructure`) needs the whole backbone, a trace has only Cα.
public enum CalphaSecondaryStructure {
    public enum State: UInt8, Sendable, Equatable { case coil, helix, strand }

    public static func assign(_ p: [SIMD3<Double>]) -> [State] {
        var states = [State](repeating: .coil, count: p.count)
        guard p.count >= 5 else { return states }
        func near(_ d: Double, _ ideal: Double, _ tolerance: Double) -> Bool { abs(d - ideal) < tolerance }
        for i in 2..<(p.count - 2) {
            let d13 = distance(p[i - 2], p[i]), d14 = distance(p[i - 2], p[i + 1]), d15 = distance(p[i - 2], p[i + 2])
            let d24 = distance(p[i - 1], p[i + 1]), d25 = distance(p[i - 1], p[i + 2]), d35 = distance(p[i], p[i + 2])
            if near(d13, 5.45, 2.1) && near(d14, 5.18, 2.1) && near(d15, 6.37, 2.1)
                && near(d24, 5.45, 2.1) && near(d25, 5.18, 2.1) && near(d35, 5.45, 2.1) {
                states[i] = .helix
            } else if near(d13, 6.1, 1.42) && near(d14, 10.4, 1.42) && near(d15, 13.0, 1.42)
                && near(d24, 6.1, 1.42) && near(d25, 10.4, 1.42) && near(d35, 6.1, 1.42) {
                states[i] = .strand
            }
        }
        return states
    }

    /// The alignment of two traces' states (1 for the same state, gaps 1 to open and nothing to
    /// extend, free end gaps).
    public static func align(_ a: [State], _ b: [State]) -> PairwiseAlignment {
        var scores = [Double](repeating: 0, count: a.count * b.count)
        for i in a.indices { for j in b.indices where a[i] == b[j] { scores[i * b.count + j] = 1 } }
        return PairwiseAlignment.align(rows: a.count, columns: b.count, scores: scores, gaps: .init(open: 1, extend: 0))
    }
}
