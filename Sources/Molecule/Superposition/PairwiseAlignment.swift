/// Global pairwise alignment with affine gaps and free end gaps (Needleman & Wunsch 1970 with
/// Gotoh's three states, 1982), over any score matrix: residue letters scored by BLOSUM62 to pair
/// chains by sequence, or Cα distances scored as TM-score terms to pair them by structure.
///
/// A gap of k residues costs `open + k·extend`. Gaps before the first and after the last pair of
/// either sequence cost nothing ("semi-global"), so a fragment aligns inside a longer chain without
/// paying for the overhang.
public struct PairwiseAlignment: Sendable, Equatable {
    /// The aligned pairs (index in the first sequence, index in the second), both increasing.
    public var pairs: [(Int, Int)] { zip(first, second).map { ($0, $1) } }
    public var first: [Int]
    public var second: [Int]
    /// The alignment's score: the sum of the pairs' scores less the inner gaps' costs.
    public var score: Double

    public var count: Int { first.count }

    public init(first: [Int], second: [Int], score: Double) { self.first = first; self.second = second; self.score = score }

    /// Gap costs: positive numbers subtracted from the score.
    public struct Gaps: Sendable, Equatable {
        public var open: Double
        public var extend: Double
        public init(open: Double, extend: Double) { self.open = open; self.extend = extend }
    }

    private enum State: UInt8 { case match = 0, gapInSecond = 1, gapInFirst = 2 }

    /// Aligns rows `0..<n` with columns `0..<m` of `scores` (row-major, `scores[i * m + j]` the score
    /// of pairing i with j).
    public static func align(rows n: Int, columns m: Int, scores: [Double], gaps: Gaps) -> PairwiseAlignment {
        precondition(scores.count == n * m, "score matrix is \(scores.count) values, not \(n) × \(m)")
        guard n > 0, m > 0 else { return PairwiseAlignment(first: [], second: [], score: 0) }
        let w = m + 1
        let none = -Double.infinity
        // Best score of a path to (i, j) ending in each state, with the state it came from.
        var match = [Double](repeating: none, count: (n + 1) * w)
        var gapSecond = [Double](repeating: none, count: (n + 1) * w)  // first[i] against a gap
        var gapFirst = [Double](repeating: none, count: (n + 1) * w)   // second[j] against a gap
        var fromMatch = [UInt8](repeating: 0, count: (n + 1) * w)
        var fromGapSecond = [UInt8](repeating: 0, count: (n + 1) * w)
        var fromGapFirst = [UInt8](repeating: 0, count: (n + 1) * w)
        match[0] = 0
        // Leading gaps are free.
        for i in 1...n { gapSecond[i * w] = 0; fromGapSecond[i * w] = State.gapInSecond.rawValue }
        for j in 1...m { gapFirst[j] = 0; fromGapFirst[j] = State.gapInFirst.rawValue }
        fromGapSecond[w] = State.match.rawValue
        fromGapFirst[1] = State.match.rawValue
        let openCost = gaps.open + gaps.extend
        for i in 1...n {
            for j in 1...m {
                let d = (i - 1) * w + (j - 1), here = i * w + j, up = (i - 1) * w + j, left = i * w + (j - 1)
                // Match: from the best state at (i-1, j-1).
                var best = match[d], from = State.match
                if gapSecond[d] > best { best = gapSecond[d]; from = .gapInSecond }
                if gapFirst[d] > best { best = gapFirst[d]; from = .gapInFirst }
                match[here] = best + scores[(i - 1) * m + (j - 1)]
                fromMatch[here] = from.rawValue
                // first[i-1] against a gap: from (i-1, j).
                var g = match[up] - openCost; from = .match
                if gapSecond[up] - gaps.extend > g { g = gapSecond[up] - gaps.extend; from = .gapInSecond }
                if gapFirst[up] - openCost > g { g = gapFirst[up] - openCost; from = .gapInFirst }
                gapSecond[here] = g; fromGapSecond[here] = from.rawValue
                // second[j-1] against a gap: from (i, j-1).
                g = match[left] - openCost; from = .match
                if gapFirst[left] - gaps.extend > g { g = gapFirst[left] - gaps.extend; from = .gapInFirst }
                if gapSecond[left] - openCost > g { g = gapSecond[left] - openCost; from = .gapInSecond }
                gapFirst[here] = g; fromGapFirst[here] = from.rawValue
            }
        }
        // Trailing gaps are free: the end is the best cell of the last row or column.
        func bestState(_ cell: Int) -> (Double, State) {
            var s = match[cell], st = State.match
            if gapSecond[cell] > s { s = gapSecond[cell]; st = .gapInSecond }
            if gapFirst[cell] > s { s = gapFirst[cell]; st = .gapInFirst }
            return (s, st)
        }
        var end = (i: n, j: m), (endScore, endState) = bestState(n * w + m)
        for i in 1...n {
            let (s, st) = bestState(i * w + m)
            if s > endScore { endScore = s; endState = st; end = (i, m) }
        }
        for j in 1...m {
            let (s, st) = bestState(n * w + j)
            if s > endScore { endScore = s; endState = st; end = (n, j) }
        }
        var first: [Int] = [], second: [Int] = []
        var (i, j, state) = (end.i, end.j, endState)
        while i > 0 && j > 0 {
            let here = i * w + j
            switch state {
            case .match:
                first.append(i - 1); second.append(j - 1)
                state = State(rawValue: fromMatch[here]) ?? .match
                i -= 1; j -= 1
            case .gapInSecond:
                state = State(rawValue: fromGapSecond[here]) ?? .match
                i -= 1
            case .gapInFirst:
                state = State(rawValue: fromGapFirst[here]) ?? .match
                j -= 1
            }
        }
        return PairwiseAlignment(first: first.reversed(), second: second.reversed(), score: endScore)
    }

    /// The score `align` would give, in memory proportional to one row (no traceback): for ranking
    /// many candidate pairs.
    public static func score(rows n: Int, columns m: Int, scores: [Double], gaps: Gaps) -> Double {
        precondition(scores.count == n * m, "score matrix is \(scores.count) values, not \(n) × \(m)")
        guard n > 0, m > 0 else { return 0 }
        let none = -Double.infinity
        let openCost = gaps.open + gaps.extend
        // The previous row and this one of the three states, each array made on its own: swapping two
        // pairs of rows made from one array gave wrong scores in optimised builds (Swift 6.3's -O;
        // fine at -Onone), so each row is new and then kept.
        var match = [Double](repeating: none, count: m + 1)
        var gapSecond = [Double](repeating: none, count: m + 1)
        var gapFirst = [Double](repeating: 0, count: m + 1)
        match[0] = 0; gapFirst[0] = none
        var best = none
        for i in 1...n {
            var rowMatch = [Double](repeating: none, count: m + 1)
            var rowGapSecond = [Double](repeating: none, count: m + 1)
            var rowGapFirst = [Double](repeating: none, count: m + 1)
            rowGapSecond[0] = 0
            for j in 1...m {
                rowMatch[j] = max(match[j - 1], gapSecond[j - 1], gapFirst[j - 1]) + scores[(i - 1) * m + (j - 1)]
                rowGapSecond[j] = max(match[j] - openCost, gapSecond[j] - gaps.extend, gapFirst[j] - openCost)
                rowGapFirst[j] = max(rowMatch[j - 1] - openCost, rowGapFirst[j - 1] - gaps.extend, rowGapSecond[j - 1] - openCost)
            }
            best = max(best, rowMatch[m], rowGapSecond[m], rowGapFirst[m])
            match = rowMatch; gapSecond = rowGapSecond; gapFirst = rowGapFirst
        }
        for j in 1...m { best = max(best, match[j], gapSecond[j], gapFirst[j]) }
        return best
    }

    public static func == (a: Self, b: Self) -> Bool { a.first == b.first && a.second == b.second && a.score == b.score }
}

/// Sequence alignment of two chains: BLOSUM62 with an existence cost of 11 and 1 per gapped
/// residue (BLAST's defaults for BLOSUM62), free end gaps.
public enum SequenceAlignment {
    public static let gaps = PairwiseAlignment.Gaps(open: 11, extend: 1)

    public static func align(_ a: [Character], _ b: [Character], gaps: PairwiseAlignment.Gaps = gaps) -> PairwiseAlignment {
        PairwiseAlignment.align(rows: a.count, columns: b.count, scores: matrix(a, b), gaps: gaps)
    }

    /// The score `align` gives, without the alignment.
    public static func score(_ a: [Character], _ b: [Character], gaps: PairwiseAlignment.Gaps = gaps) -> Double {
        PairwiseAlignment.score(rows: a.count, columns: b.count, scores: matrix(a, b), gaps: gaps)
    }

    static func matrix(_ a: [Character], _ b: [Character]) -> [Double] {
        let ia = a.map(BLOSUM62.index(of:)), ib = b.map(BLOSUM62.index(of:))
        var scores = [Double](repeating: 0, count: a.count * b.count)
        for i in ia.indices {
            let row = BLOSUM62.rows[ia[i]]
            for j in ib.indices { scores[i * b.count + j] = Double(row[ib[j]]) }
        }
        return scores
    }

    /// Identical letters among the aligned pairs.
    public static func identities(_ alignment: PairwiseAlignment, _ a: [Character], _ b: [Character]) -> Int {
        zip(alignment.first, alignment.second).reduce(0) { $0 + (a[$1.0] == b[$1.1] ? 1 : 0) }
    }
}
