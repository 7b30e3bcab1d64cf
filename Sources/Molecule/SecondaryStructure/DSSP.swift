// Secondary-structure assignment after Kabsch & Sander (1983), "Dictionary of protein secondary
// structure", Biopolymers 22:2577–2637, with the later DSSP conventions:
//  * π-helices (I) take priority over α-helices (H) — the DSSP 4 order (`Options.preferPiHelices`);
//    the classic order (H before I) is available by switching it off;
//  * κ-helices / polyproline II (P): DSSP 4's stretches of residues with φ in −75 ± 29° and
//    ψ in 145 ± 29° that are not otherwise assigned.
//
// Everything is linear in the number of residues: hydrogen-bond candidates come from a spatial
// hash of Cα positions (9 Å cells), bridges are searched only among hydrogen-bond partners.
// No Foundation / libm: angles are tested through cosines and sector tests.

/// The backbone of one amino-acid residue, the input of `DSSP.assign`.
public struct BackboneResidue: Sendable {
    public var n: SIMD3<Float>
    public var ca: SIMD3<Float>
    public var c: SIMD3<Float>
    public var o: SIMD3<Float>
    /// Prolines have no amide hydrogen and never donate a hydrogen bond.
    public var isProline: Bool
    /// Residues with different chainIndex are never bonded; a chain break inside a chain is detected
    /// by C(i-1)–N(i) distance > 2.5 Å.
    public var chainIndex: Int32

    public init(n: SIMD3<Float>, ca: SIMD3<Float>, c: SIMD3<Float>, o: SIMD3<Float>,
                isProline: Bool = false, chainIndex: Int32 = 0) {
        self.n = n; self.ca = ca; self.c = c; self.o = o
        self.isProline = isProline; self.chainIndex = chainIndex
    }
}

public enum DSSP {
    public struct Options: Sendable, Equatable {
        /// DSSP 4 behaviour (default): a minimal π-helix may overwrite α-helix residues.
        /// `false` gives the classic (DSSP ≤ 2) order H > … > G > I.
        public var preferPiHelices: Bool
        /// Minimal number of consecutive residues in the polyproline-II region to assign P
        /// (DSSP 4 accepts 2 or 3, default 3); 0 switches P off.
        public var minimumPolyprolineStretch: Int

        public init(preferPiHelices: Bool = true, minimumPolyprolineStretch: Int = 3) {
            self.preferPiHelices = preferPiHelices
            self.minimumPolyprolineStretch = minimumPolyprolineStretch
        }
    }

    /// One code per input residue, in input order. Residues missing backbone atoms are the caller's
    /// business (it passes only complete ones); input order is chain order.
    public static func assign(_ residues: [BackboneResidue], options: Options = Options()) -> [SecondaryStructureCode] {
        var state = DSSPState(residues)
        return state.run(options)
    }
}

// MARK: - Constants

private enum K {
    /// Cα–Cα distance beyond which no hydrogen bond is evaluated (Å).
    static let caCutoff: Float = 9.0
    /// C(i-1)–N(i) distance beyond which the chain is broken (Å).
    static let maxPeptideBond: Float = 2.5
    /// q1·q2·f = 0.42 e · 0.20 e · 332 Å·kcal/(mol·e²).
    static let coupling: Double = 0.084 * 332
    static let minimalDistance: Float = 0.5
    static let minimumEnergy: Double = -9.9
    /// A hydrogen bond exists when E < −0.5 kcal/mol.
    static let maxHBondEnergy: Float = -0.5
    /// cos 70°: a bend is a Cα(i-2), Cα(i), Cα(i+2) direction change larger than 70°.
    static let cosBend: Float = 0.34202014332566877
    /// Polyproline-II sector edges as (cos, sin): φ ∈ [−104°, −46°], ψ ∈ [116°, 174°].
    static let phiLow = SIMD2<Float>(-0.24192189559966779, -0.9702957262759965)
    static let phiHigh = SIMD2<Float>(0.6946583704589973, -0.7193398003386511)
    static let psiLow = SIMD2<Float>(-0.4383711467890775, 0.8987940462991669)
    static let psiHigh = SIMD2<Float>(-0.9945218953682733, 0.10452846326765373)
}

// MARK: - Geometry helpers

@inline(__always) private func dot3(_ a: SIMD3<Float>, _ b: SIMD3<Float>) -> Float { (a * b).sum() }
@inline(__always) private func length3(_ a: SIMD3<Float>) -> Float { dot3(a, a).squareRoot() }
@inline(__always) private func distance3(_ a: SIMD3<Float>, _ b: SIMD3<Float>) -> Float { length3(a - b) }
@inline(__always) private func cross3(_ a: SIMD3<Float>, _ b: SIMD3<Float>) -> SIMD3<Float> {
    SIMD3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
}

/// The dihedral p0-p1-p2-p3 as an unnormalised (cos, sin) pair (IUPAC sign convention):
/// the angle is atan2(y, x). Zero when degenerate.
@inline(__always) private func dihedralVector(_ p0: SIMD3<Float>, _ p1: SIMD3<Float>,
                                              _ p2: SIMD3<Float>, _ p3: SIMD3<Float>) -> SIMD2<Float> {
    let b1 = p1 - p0, b2 = p2 - p1, b3 = p3 - p2
    let n2 = cross3(b2, b3)
    return SIMD2(dot3(cross3(b1, b2), n2), length3(b2) * dot3(b1, n2))
}

/// Whether the direction `v` lies in the sector from `low` counter-clockwise to `high` (< 180° wide).
@inline(__always) private func inSector(_ v: SIMD2<Float>, _ low: SIMD2<Float>, _ high: SIMD2<Float>) -> Bool {
    guard v.x != 0 || v.y != 0 else { return false }
    return low.x * v.y - low.y * v.x >= 0 && v.x * high.y - v.y * high.x >= 0
}

// MARK: - Working state

/// One of the two best hydrogen-bond partners kept per residue and direction, as in DSSP.
private struct HBondSlot {
    var partner: Int32 = .max
    var energy: Float = 0
}

private enum BridgeKind { case parallel, antiparallel }

/// A ladder: consecutive bridges of one kind, later merged across β-bulges. The i and j strands are
/// kept as DSSP keeps them (front/back of its lists), so the fill of bulge residues matches.
private struct Ladder {
    var kind: BridgeKind
    var iFront: Int, iBack: Int
    var jFront: Int, jBack: Int
    var iCount: Int
    var alive = true
}

private struct DSSPState {
    let count: Int
    var nPos: [SIMD3<Float>]
    var caPos: [SIMD3<Float>]
    var cPos: [SIMD3<Float>]
    var oPos: [SIMD3<Float>]
    var hPos: [SIMD3<Float>]
    var hasH: [Bool]
    /// Contiguous, unbroken stretches of one chain share a segment number.
    var segment: [Int32]
    /// As donor (N-H of this residue → O of partner): the two lowest energies.
    var acceptor0: [HBondSlot]
    var acceptor1: [HBondSlot]
    /// As acceptor (O of this residue ← N-H of partner).
    var donor0: [HBondSlot]
    var donor1: [HBondSlot]
    var ss: [SecondaryStructureCode]

    init(_ residues: [BackboneResidue]) {
        count = residues.count
        nPos = residues.map(\.n)
        caPos = residues.map(\.ca)
        cPos = residues.map(\.c)
        oPos = residues.map(\.o)
        hPos = nPos
        hasH = [Bool](repeating: false, count: count)
        segment = [Int32](repeating: 0, count: count)
        acceptor0 = [HBondSlot](repeating: HBondSlot(), count: count)
        acceptor1 = acceptor0
        donor0 = acceptor0
        donor1 = acceptor0
        ss = [SecondaryStructureCode](repeating: .coil, count: count)

        var seg: Int32 = 0
        for i in 0..<count {
            if i > 0 {
                let broken = residues[i].chainIndex != residues[i - 1].chainIndex
                    || !(distance3(cPos[i - 1], nPos[i]) <= K.maxPeptideBond)
                if broken { seg += 1 }
            }
            segment[i] = seg
            // The amide H lies 1 Å from N, along the previous residue's O→C direction.
            if i > 0 && segment[i - 1] == seg && !residues[i].isProline {
                let co = cPos[i - 1] - oPos[i - 1]
                let len = length3(co)
                if len > 0 {
                    hPos[i] = nPos[i] + co / len
                    hasH[i] = true
                }
            }
        }
    }

    mutating func run(_ options: DSSP.Options) -> [SecondaryStructureCode] {
        guard count > 0 else { return [] }
        computeHydrogenBonds()
        let turns = computeTurns()
        assignSheets()
        assignHelices(turns: turns, preferPi: options.preferPiHelices)
        assignTurnsAndBends(turns: turns)
        if options.minimumPolyprolineStretch > 0 {
            assignPolyproline(stretch: max(2, min(3, options.minimumPolyprolineStretch)))
        }
        return ss
    }

    @inline(__always) func sameSegment(_ a: Int, _ b: Int) -> Bool { segment[a] == segment[b] }

    // MARK: Hydrogen bonds

    /// Kabsch–Sander electrostatic energy of N-H(donor) ··· O=C(acceptor), kcal/mol, rounded to
    /// 0.001 and floored at −9.9 as in DSSP.
    @inline(__always) func energy(donor d: Int, acceptor a: Int) -> Float {
        guard hasH[d] else { return 0 }
        let n = nPos[d], h = hPos[d], c = cPos[a], o = oPos[a]
        let dHO = distance3(h, o), dHC = distance3(h, c), dNC = distance3(n, c), dNO = distance3(n, o)
        var e: Double
        if dHO < K.minimalDistance || dHC < K.minimalDistance || dNC < K.minimalDistance || dNO < K.minimalDistance {
            e = K.minimumEnergy
        } else {
            e = K.coupling * (1 / Double(dNO) + 1 / Double(dHC) - 1 / Double(dHO) - 1 / Double(dNC))
            e = (e * 1000).rounded() / 1000
            if e < K.minimumEnergy { e = K.minimumEnergy }
        }
        return Float(e)
    }

    /// Keeps the two best partners. Ties go to the lower partner index, which is what DSSP's
    /// ascending pair loop gives, so the result does not depend on the grid's visiting order.
    @inline(__always) static func offer(_ e: Float, _ partner: Int32, _ s0: inout HBondSlot, _ s1: inout HBondSlot) {
        if e < s0.energy || (e == s0.energy && partner < s0.partner) {
            s1 = s0
            s0 = HBondSlot(partner: partner, energy: e)
        } else if e < s1.energy || (e == s1.energy && partner < s1.partner) {
            s1 = HBondSlot(partner: partner, energy: e)
        }
    }

    @inline(__always) mutating func evaluate(donor d: Int, acceptor a: Int) {
        let e = energy(donor: d, acceptor: a)
        guard e < 0 else { return }
        Self.offer(e, Int32(truncatingIfNeeded: a), &acceptor0[d], &acceptor1[d])
        Self.offer(e, Int32(truncatingIfNeeded: d), &donor0[a], &donor1[a])
    }

    /// Evaluates every residue pair with Cα closer than 9 Å, found through a hashed 9 Å grid.
    mutating func computeHydrogenBonds() {
        var low = caPos[0]
        for p in caPos where p == p { low = pointwiseMin(low, p) }
        if !(low == low) { low = .zero }
        // Integer cell coordinates.
        var cells = [SIMD3<Int32>](repeating: .zero, count: count)
        for i in 0..<count {
            let q = ((caPos[i] - low) / K.caCutoff).rounded(.down)
            func clampCell(_ v: Float) -> Int32 { v.isFinite ? Int32(max(0, min(v, 1_000_000))) : 0 }
            cells[i] = SIMD3(clampCell(q.x), clampCell(q.y), clampCell(q.z))
        }
        // Spatial hash table, bucket lists by counting sort.
        var tableSize = 16
        while tableSize < 2 * count { tableSize <<= 1 }
        let mask = tableSize - 1
        @inline(__always) func bucket(_ c: SIMD3<Int32>) -> Int {
            let h = Int(c.x) &* 73_856_093 ^ Int(c.y) &* 19_349_663 ^ Int(c.z) &* 83_492_791
            return h & mask
        }
        var start = [Int32](repeating: 0, count: tableSize + 1)
        var residueBucket = [Int32](repeating: 0, count: count)
        for i in 0..<count {
            let b = bucket(cells[i])
            residueBucket[i] = Int32(b)
            start[b + 1] += 1
        }
        for b in 0..<tableSize { start[b + 1] += start[b] }
        var fill = start
        var members = [Int32](repeating: 0, count: count)
        for i in 0..<count {
            let b = Int(residueBucket[i])
            members[Int(fill[b])] = Int32(i)
            fill[b] += 1
        }

        let cutoff2 = K.caCutoff * K.caCutoff
        var neighbourBuckets = [Int](repeating: 0, count: 27)
        var neighbourCount = 0
        var lastCell = SIMD3<Int32>(-1, -1, -1)
        for i in 0..<count {
            let cell = cells[i]
            if cell != lastCell {
                lastCell = cell
                neighbourCount = 0
                for dz: Int32 in -1...1 {
                    for dy: Int32 in -1...1 {
                        for dx: Int32 in -1...1 {
                            let b = bucket(cell &+ SIMD3(dx, dy, dz))
                            var seen = false
                            for k in 0..<neighbourCount where neighbourBuckets[k] == b { seen = true; break }
                            if !seen { neighbourBuckets[neighbourCount] = b; neighbourCount += 1 }
                        }
                    }
                }
            }
            let ca = caPos[i]
            for k in 0..<neighbourCount {
                let b = neighbourBuckets[k]
                for m in Int(start[b])..<Int(start[b + 1]) {
                    let j = Int(members[m])
                    guard j > i else { continue }
                    let d = caPos[j] - ca
                    guard dot3(d, d) < cutoff2 else { continue }
                    // DSSP evaluates donor i → acceptor j for all pairs, the reverse only when j ≠ i + 1.
                    evaluate(donor: i, acceptor: j)
                    if j != i + 1 { evaluate(donor: j, acceptor: i) }
                }
            }
        }
    }

    /// Whether the N-H of `d` is hydrogen bonded to the C=O of `a` (one of d's two best acceptors).
    @inline(__always) func bonded(donor d: Int, acceptor a: Int) -> Bool {
        let p = Int32(truncatingIfNeeded: a)
        return (acceptor0[d].partner == p && acceptor0[d].energy < K.maxHBondEnergy)
            || (acceptor1[d].partner == p && acceptor1[d].energy < K.maxHBondEnergy)
    }

    // MARK: Turns

    /// Bit n (3, 4, 5) of element i: an n-turn at i, Hbond(CO i, NH i+n), not spanning a break.
    func computeTurns() -> [UInt8] {
        var turns = [UInt8](repeating: 0, count: count)
        for i in 0..<count {
            for n in 3...5 where i + n < count {
                if sameSegment(i, i + n) && bonded(donor: i + n, acceptor: i) {
                    turns[i] |= UInt8(1 << n)
                }
            }
        }
        return turns
    }

    // MARK: Bridges, ladders, sheets

    func bridge(_ i: Int, _ j: Int) -> BridgeKind? {
        guard i >= 1, j >= 1, i + 1 < count, j + 1 < count,
              sameSegment(i - 1, i + 1), sameSegment(j - 1, j + 1) else { return nil }
        let a = i - 1, b = i, c = i + 1, d = j - 1, e = j, f = j + 1
        // Parallel: [Hbond(i-1, j) and Hbond(j, i+1)] or [Hbond(j-1, i) and Hbond(i, j+1)],
        // Hbond(x, y) meaning C=O of x to N-H of y.
        if (bonded(donor: c, acceptor: e) && bonded(donor: e, acceptor: a))
            || (bonded(donor: f, acceptor: b) && bonded(donor: b, acceptor: d)) {
            return .parallel
        }
        // Antiparallel: [Hbond(i, j) and Hbond(j, i)] or [Hbond(i-1, j+1) and Hbond(j-1, i+1)].
        if (bonded(donor: c, acceptor: d) && bonded(donor: f, acceptor: a))
            || (bonded(donor: e, acceptor: b) && bonded(donor: b, acceptor: e)) {
            return .antiparallel
        }
        return nil
    }

    mutating func assignSheets() {
        var ladders: [Ladder] = []
        // Ladders whose i strand ended at the previous residue, in creation order.
        var open: [Int] = []
        var nextOpen: [Int] = []
        var candidates: [Int] = []
        var i = 1
        while i + 4 < count {
            // Partners j ≥ i + 3 that can bridge i: every bridge needs a hydrogen bond between one of
            // i-1, i, i+1 and one of j-1, j, j+1.
            candidates.removeAll(keepingCapacity: true)
            func consider(_ slot: HBondSlot) {
                guard slot.partner != .max && slot.energy < K.maxHBondEnergy else { return }
                let p = Int(slot.partner)
                for j in (p - 1)...(p + 1) where j >= i + 3 && j + 1 < count { candidates.append(j) }
            }
            for k in (i - 1)...(i + 1) {
                consider(acceptor0[k]); consider(acceptor1[k]); consider(donor0[k]); consider(donor1[k])
            }
            candidates.sort()
            nextOpen.removeAll(keepingCapacity: true)
            var previous = -1
            for j in candidates where j != previous {
                previous = j
                guard let kind = bridge(i, j) else { continue }
                var extended = false
                for l in open where ladders[l].kind == kind && ladders[l].iBack + 1 == i {
                    if kind == .parallel && ladders[l].jBack + 1 == j {
                        ladders[l].iBack = i; ladders[l].jBack = j
                    } else if kind == .antiparallel && ladders[l].jFront - 1 == j {
                        ladders[l].iBack = i; ladders[l].jFront = j
                    } else {
                        continue
                    }
                    ladders[l].iCount += 1
                    nextOpen.append(l)
                    extended = true
                    break
                }
                if !extended {
                    nextOpen.append(ladders.count)
                    ladders.append(Ladder(kind: kind, iFront: i, iBack: i, jFront: j, jBack: j, iCount: 1))
                }
            }
            nextOpen.sort()
            swap(&open, &nextOpen)
            i += 1
        }
        guard !ladders.isEmpty else { return }

        // Join ladders of one kind across β-bulges: a gap of at most 1 residue on one strand and at
        // most 4 on the other (DSSP: i-gap < 3 with j-gap < 6, or j-gap < 3).
        // Stable sort by start of the i strand (DSSP sorts by chain, then i).
        let order = ladders.indices.sorted { (ladders[$0].iFront, $0) < (ladders[$1].iFront, $1) }
        ladders = order.map { ladders[$0] }
        @inline(__always) func within(_ d: Int, _ limit: Int) -> Bool { d >= 0 && d < limit }
        for x in ladders.indices where ladders[x].alive {
            var y = x + 1
            while y < ladders.count {
                defer { y += 1 }
                guard ladders[y].alive else { continue }
                let l = ladders[x], m = ladders[y]
                if m.iFront - l.iBack >= 6 { break }  // sorted: no later ladder is close enough
                if l.kind != m.kind || m.iFront - l.iBack < 0 { continue }
                if !sameSegment(min(l.iFront, m.iFront), max(l.iBack, m.iBack))
                    || !sameSegment(min(l.jFront, m.jFront), max(l.jBack, m.jBack))
                    || (l.iBack >= m.iFront && l.iFront <= m.iBack) { continue }
                let iGap = m.iFront - l.iBack
                let bulge: Bool
                if l.kind == .parallel {
                    let jGap = m.jFront - l.jBack
                    bulge = (within(jGap, 6) && iGap < 3) || within(jGap, 3)
                } else {
                    let jGap = l.jFront - m.jBack
                    bulge = (within(jGap, 6) && iGap < 3) || within(jGap, 3)
                }
                guard bulge else { continue }
                ladders[x].iBack = m.iBack
                ladders[x].iCount += m.iCount
                if l.kind == .parallel { ladders[x].jBack = m.jBack } else { ladders[x].jFront = m.jFront }
                ladders[y].alive = false
            }
        }

        for ladder in ladders where ladder.alive {
            let code: SecondaryStructureCode = ladder.iCount > 1 ? .strand : .bridge
            for range in [(ladder.iFront, ladder.iBack), (ladder.jFront, ladder.jBack)] where range.0 <= range.1 {
                for k in range.0...range.1 where ss[k] != .strand { ss[k] = code }
            }
        }
    }

    // MARK: Helices, turns, bends

    mutating func assignHelices(turns: [UInt8], preferPi: Bool) {
        @inline(__always) func start(_ n: Int, _ i: Int) -> Bool { turns[i] & UInt8(1 << n) != 0 }
        // α: two consecutive 4-turns at i-1 and i make i…i+3 H; H has priority over everything.
        var i = 1
        while i + 4 < count {
            if start(4, i) && start(4, i - 1) { for k in i...(i + 3) { ss[k] = .alphaHelix } }
            i += 1
        }
        // 3₁₀: only over coil or G.
        i = 1
        while i + 3 < count {
            if start(3, i) && start(3, i - 1)
                && (i...(i + 2)).allSatisfy({ ss[$0] == .coil || ss[$0] == .helix310 }) {
                for k in i...(i + 2) { ss[k] = .helix310 }
            }
            i += 1
        }
        // π: over coil or I, and over H when π-helices are preferred (DSSP 4).
        i = 1
        while i + 5 < count {
            if start(5, i) && start(5, i - 1)
                && (i...(i + 4)).allSatisfy({
                    ss[$0] == .coil || ss[$0] == .piHelix || (preferPi && ss[$0] == .alphaHelix)
                }) {
                for k in i...(i + 4) { ss[k] = .piHelix }
            }
            i += 1
        }
    }

    mutating func assignTurnsAndBends(turns: [UInt8]) {
        guard count >= 3 else { return }
        for i in 1..<(count - 1) where ss[i] == .coil {
            var isTurn = false
            for n in 3...5 where !isTurn {
                for k in 1..<n where i >= k && turns[i - k] & UInt8(1 << n) != 0 { isTurn = true; break }
            }
            if isTurn {
                ss[i] = .turn
            } else if isBend(i) {
                ss[i] = .bend
            }
        }
    }

    /// κ(i) — the angle between Cα(i-2)→Cα(i) and Cα(i)→Cα(i+2) — above 70°.
    func isBend(_ i: Int) -> Bool {
        guard i >= 2, i + 2 < count, sameSegment(i - 2, i + 2) else { return false }
        let v1 = caPos[i] - caPos[i - 2], v2 = caPos[i + 2] - caPos[i]
        let x = dot3(v1, v1) * dot3(v2, v2)
        // Degenerate geometry counts as 90°, as in DSSP.
        let cosKappa = x > 0 ? dot3(v1, v2) / x.squareRoot() : 0
        return cosKappa < K.cosBend
    }

    // MARK: Polyproline II (κ-helix)

    mutating func assignPolyproline(stretch: Int) {
        guard count >= stretch + 2 else { return }
        var inRegion = [Bool](repeating: false, count: count)
        for i in 1..<(count - 1) where sameSegment(i - 1, i + 1) {
            let phi = dihedralVector(cPos[i - 1], nPos[i], caPos[i], cPos[i])
            let psi = dihedralVector(nPos[i], caPos[i], cPos[i], nPos[i + 1])
            inRegion[i] = inSector(phi, K.phiLow, K.phiHigh) && inSector(psi, K.psiLow, K.psiHigh)
        }
        var i = 1
        while i + stretch < count {
            if (i..<(i + stretch)).allSatisfy({ inRegion[$0] }) {
                for k in i..<(i + stretch) where ss[k] == .coil { ss[k] = .polyproline }
            }
            i += 1
        }
    }
}
