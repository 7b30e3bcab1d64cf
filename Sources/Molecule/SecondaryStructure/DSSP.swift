import Geometry

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

enum DSSPConstants {
    /// Cα–Cα distance beyond which no hydrogen bond is evaluated (Å).
    static let caCutoff: Float = 9.0
    /// C(i-1)–N(i) distance beyond which the chain is broken (Å).
    static let maxPeptideBond: Float = 2.5
    /// q1·q2·f = 0.42 e · 0.20 e · 332 Å·kcal/(mol·e²).
    static let coupling: Double = 0.084 * 332
    static let minimalDistance: Float = 0.5
    /// N-H to C=O midpoint distance beyond which |E| < 0.5 for any C=O no longer than 1.5 Å
    /// (see `evaluate`).
    static let noBondMidpoints: Float = 6.8
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


/// The dihedral p0-p1-p2-p3 as an unnormalised (cos, sin) pair (IUPAC sign convention):
/// the angle is atan2(y, x). Zero when degenerate.
@inline(__always) private func dihedralVector(_ p0: SIMD3<Float>, _ p1: SIMD3<Float>,
                                              _ p2: SIMD3<Float>, _ p3: SIMD3<Float>) -> SIMD2<Float> {
    let b1 = p1 - p0, b2 = p2 - p1, b3 = p3 - p2
    let n2 = cross(b2, b3)
    return SIMD2(dot(cross(b1, b2), n2), length(b2) * dot(b1, n2))
}

/// Whether the direction `v` lies in the sector from `low` counter-clockwise to `high` (< 180° wide).
@inline(__always) private func inSector(_ v: SIMD2<Float>, _ low: SIMD2<Float>, _ high: SIMD2<Float>) -> Bool {
    guard v.x != 0 || v.y != 0 else { return false }
    return low.x * v.y - low.y * v.x >= 0 && v.x * high.y - v.y * high.x >= 0
}

// MARK: - Working state

/// One of the two best hydrogen-bond partners kept per residue and direction, as in DSSP.
struct HBondSlot {
    var partner: Int32 = .max
    var energy: Float = 0
}

/// A residue's two strongest hydrogen bonds in each direction.
struct HBondSlots {
    /// As donor: N-H of this residue → C=O of the partner.
    var acceptor0 = HBondSlot(), acceptor1 = HBondSlot()
    /// As acceptor: C=O of this residue ← N-H of the partner.
    var donor0 = HBondSlot(), donor1 = HBondSlot()

    /// Keeps the two best. Ties go to the lower partner index, which is what DSSP's ascending pair
    /// loop gives, so the result does not depend on the grid's visiting order.
    @inline(__always) static func offer(_ e: Float, _ partner: Int32, _ s0: inout HBondSlot, _ s1: inout HBondSlot) {
        if e < s0.energy || (e == s0.energy && partner < s0.partner) {
            s1 = s0
            s0 = HBondSlot(partner: partner, energy: e)
        } else if e < s1.energy || (e == s1.energy && partner < s1.partner) {
            s1 = HBondSlot(partner: partner, energy: e)
        }
    }
    @inline(__always) mutating func offerAcceptor(_ e: Float, _ partner: Int32) { Self.offer(e, partner, &acceptor0, &acceptor1) }
    @inline(__always) mutating func offerDonor(_ e: Float, _ partner: Int32) { Self.offer(e, partner, &donor0, &donor1) }
}

enum BridgeKind { case parallel, antiparallel }

/// A ladder: consecutive bridges of one kind, later merged across β-bulges. The i and j strands are
/// kept as DSSP keeps them (front/back of its lists), so the fill of bulge residues matches.
struct Ladder {
    var kind: BridgeKind
    var iFront: Int, iBack: Int
    var jFront: Int, jBack: Int
    var iCount: Int
    var alive = true
}

struct DSSPState {
    let count: Int
    var nPos: [SIMD3<Float>]
    var caPos: [SIMD3<Float>]
    var cPos: [SIMD3<Float>]
    var oPos: [SIMD3<Float>]
    var hPos: [SIMD3<Float>]
    var hasH: [Bool]
    /// |C=O| ≤ 1.5 Å, the premise of the rejection test in `evaluate`.
    var normalCarbonyl: [Bool]
    var midNH: [SIMD3<Float>]
    var midCO: [SIMD3<Float>]
    /// Contiguous, unbroken stretches of one chain share a segment number.
    var segment: [Int32]
    var bonds: [HBondSlots]
    var ss: [SecondaryStructureCode]

    init(_ residues: [BackboneResidue]) {
        count = residues.count
        nPos = residues.map(\.n)
        caPos = residues.map(\.ca)
        cPos = residues.map(\.c)
        oPos = residues.map(\.o)
        hPos = nPos
        hasH = [Bool](repeating: false, count: count)
        normalCarbonyl = residues.map { distance($0.c, $0.o) <= 1.5 }
        midCO = residues.map { ($0.c + $0.o) * 0.5 }
        midNH = nPos
        segment = [Int32](repeating: 0, count: count)
        bonds = [HBondSlots](repeating: HBondSlots(), count: count)
        ss = [SecondaryStructureCode](repeating: .coil, count: count)

        var seg: Int32 = 0
        for i in 0..<count {
            if i > 0 {
                let broken = residues[i].chainIndex != residues[i - 1].chainIndex
                    || !(distance(cPos[i - 1], nPos[i]) <= DSSPConstants.maxPeptideBond)
                if broken { seg += 1 }
            }
            segment[i] = seg
            // The amide H lies 1 Å from N, along the previous residue's O→C direction.
            if i > 0 && segment[i - 1] == seg && !residues[i].isProline {
                let h = DSSP.amideHydrogen(n: nPos[i], previousC: cPos[i - 1], previousO: oPos[i - 1])
                if h != nPos[i] {
                    hPos[i] = h
                    midNH[i] = (nPos[i] + h) * 0.5
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
        return DSSP.hydrogenBondEnergy(n: nPos[d], h: hPos[d], c: cPos[a], o: oPos[a])
    }

    /// Only hydrogen bonds (E < −0.5) are kept: weaker energies can neither be bonds nor displace
    /// a bond from the two best, so dropping them changes nothing in the assignment.
    @inline(__always) mutating func evaluate(donor d: Int, acceptor a: Int) {
        guard hasH[d] else { return }
        // Cheap rejection. With |N-H| = 1 and |C=O| = L, |E| ≤ 2·k·L / R³ where R is the distance
        // between the N-H and C=O segments (the Hessian of 1/r has norm 2/r³), and R is at least the
        // distance between the segments' midpoints minus 0.5 and L/2. For L ≤ 1.5 Å, |E| < 0.5 once
        // that midpoint distance exceeds (4·27.888·1.5)^(1/3) + 0.5 + 0.75 ≈ 6.76 Å.
        if normalCarbonyl[a] {
            let v = midCO[a] - midNH[d]
            if dot(v, v) > DSSPConstants.noBondMidpoints * DSSPConstants.noBondMidpoints { return }
        }
        let e = energy(donor: d, acceptor: a)
        guard e < DSSPConstants.maxHBondEnergy else { return }
        bonds[d].offerAcceptor(e, Int32(truncatingIfNeeded: a))
        bonds[a].offerDonor(e, Int32(truncatingIfNeeded: d))
    }

    /// Evaluates every residue pair with Cα closer than 9 Å. Residues are binned into 9 Å cells
    /// (cells found through an open-addressing hash of their integer coordinates, residues grouped
    /// per cell by counting sort); each pair of neighbouring cells is visited once.
    mutating func computeHydrogenBonds() {
        var low = SIMD3<Float>(repeating: .infinity)
        for p in caPos where p == p { low = pointwiseMin(low, p) }
        if !(low == low) || low.x == .infinity { low = .zero }

        // Packed cell coordinates, 21 bits each, kept within 1...2²¹−2 so that neighbour offsets
        // never leave the field (absurdly distant or non-finite positions are clamped; the exact
        // distance test below keeps the result correct).
        let maxCoordinate: Float = Float((1 << 21) - 2)
        @inline(__always) func pack(_ x: UInt64, _ y: UInt64, _ z: UInt64) -> UInt64 { x << 42 | y << 21 | z }
        var residueKey = [UInt64](repeating: 0, count: count)
        for i in 0..<count {
            let q = (caPos[i] - low) / DSSPConstants.caCutoff
            @inline(__always) func coordinate(_ v: Float) -> UInt64 {
                v.isFinite ? UInt64(max(0, min(v, maxCoordinate - 1))) + 1 : 1
            }
            residueKey[i] = pack(coordinate(q.x), coordinate(q.y), coordinate(q.z))
        }

        var bits = 4
        while (1 << bits) < 2 * count { bits += 1 }
        let tableMask = (1 << bits) - 1
        var tableCell = [Int32](repeating: -1, count: 1 << bits)
        var cellKeys: [UInt64] = []
        @inline(__always) func slot(_ key: UInt64) -> Int { Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> UInt64(64 - bits)) }
        @inline(__always) func find(_ key: UInt64) -> Int32 {
            var h = slot(key)
            while true {
                let c = tableCell[h]
                if c < 0 || cellKeys[Int(c)] == key { return c }
                h = (h + 1) & tableMask
            }
        }
        var residueCell = [Int32](repeating: 0, count: count)
        var cellStart: [Int32] = [0]
        for i in 0..<count {
            let key = residueKey[i]
            var h = slot(key)
            var c: Int32 = -1
            while true {
                let t = tableCell[h]
                if t < 0 {
                    c = Int32(cellKeys.count)
                    tableCell[h] = c
                    cellKeys.append(key)
                    cellStart.append(0)
                    break
                }
                if cellKeys[Int(t)] == key { c = t; break }
                h = (h + 1) & tableMask
            }
            residueCell[i] = c
            cellStart[Int(c) + 1] += 1
        }
        let cellCount = cellKeys.count
        for c in 0..<cellCount { cellStart[c + 1] += cellStart[c] }
        var fill = cellStart
        var members = [Int32](repeating: 0, count: count)
        for i in 0..<count {  // ascending within each cell
            let c = Int(residueCell[i])
            members[Int(fill[c])] = Int32(i)
            fill[c] += 1
        }

        let cutoff2 = DSSPConstants.caCutoff * DSSPConstants.caCutoff
        let fieldMask: UInt64 = (1 << 21) - 1
        // Cα atoms are never closer than about 3 Å, so a 9 Å cell holds a few dozen at most. A cell
        // with far more is not a protein (all atoms at one point, say); its residues get no hydrogen
        // bonds rather than a quadratic amount of work.
        let crowded = 256
        for c in 0..<cellCount {
            let key = cellKeys[c]
            let x = key >> 42, y = (key >> 21) & fieldMask, z = key & fieldMask
            let cBegin = Int(cellStart[c]), cEnd = Int(cellStart[c + 1])
            guard cEnd - cBegin <= crowded else { continue }
            for nx in (x - 1)...(x + 1) {
                for ny in (y - 1)...(y + 1) {
                    for nz in (z - 1)...(z + 1) {
                        let other = find(pack(nx, ny, nz))
                        guard other >= Int32(c) else { continue }  // each cell pair once
                        let o = Int(other)
                        guard Int(cellStart[o + 1] - cellStart[o]) <= crowded else { continue }
                        for m in cBegin..<cEnd {
                            let a = Int(members[m])
                            let ca = caPos[a]
                            for mm in (o == c ? m + 1 : Int(cellStart[o]))..<Int(cellStart[o + 1]) {
                                let b = Int(members[mm])
                                let d = caPos[b] - ca
                                guard dot(d, d) < cutoff2 else { continue }
                                let i = min(a, b), j = max(a, b)
                                // DSSP evaluates donor i → acceptor j for all pairs, the reverse only when j ≠ i + 1.
                                evaluate(donor: i, acceptor: j)
                                if j != i + 1 { evaluate(donor: j, acceptor: i) }
                            }
                        }
                    }
                }
            }
        }
    }

    /// Whether the N-H of `d` is hydrogen bonded to the C=O of `a` (one of d's two best acceptors).
    @inline(__always) func bonded(donor d: Int, acceptor a: Int) -> Bool {
        let p = Int32(truncatingIfNeeded: a)
        let b = bonds[d]
        return (b.acceptor0.partner == p && b.acceptor0.energy < DSSPConstants.maxHBondEnergy)
            || (b.acceptor1.partner == p && b.acceptor1.energy < DSSPConstants.maxHBondEnergy)
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
        let x = dot(v1, v1) * dot(v2, v2)
        // Degenerate geometry counts as 90°, as in DSSP.
        let cosKappa = x > 0 ? dot(v1, v2) / x.squareRoot() : 0
        return cosKappa < DSSPConstants.cosBend
    }

    // MARK: Polyproline II (κ-helix)

    mutating func assignPolyproline(stretch: Int) {
        guard count >= stretch + 2 else { return }
        var inRegion = [Bool](repeating: false, count: count)
        for i in 1..<(count - 1) where sameSegment(i - 1, i + 1) {
            let phi = dihedralVector(cPos[i - 1], nPos[i], caPos[i], cPos[i])
            let psi = dihedralVector(nPos[i], caPos[i], cPos[i], nPos[i + 1])
            inRegion[i] = inSector(phi, DSSPConstants.phiLow, DSSPConstants.phiHigh) && inSector(psi, DSSPConstants.psiLow, DSSPConstants.psiHigh)
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

extension DSSP {
    /// The amide hydrogen DSSP assumes: 1 Å from N along the previous residue's O→C direction.
    public static func amideHydrogen(n: SIMD3<Float>, previousC: SIMD3<Float>, previousO: SIMD3<Float>) -> SIMD3<Float> {
        let co = previousC - previousO
        let len = length(co)
        return len > 0 ? n + co / len : n
    }

    /// Kabsch–Sander electrostatic energy (kcal/mol) of the hydrogen bond N-H ··· O=C, rounded to
    /// 0.001 and floored at −9.9 as DSSP computes it; a bond is an energy below −0.5.
    public static func hydrogenBondEnergy(n: SIMD3<Float>, h: SIMD3<Float>, c: SIMD3<Float>, o: SIMD3<Float>) -> Float {
        // Squared distances O–N, C–H, O–H, C–N side by side; one vector square root.
        let v0 = o - n, v1 = c - h, v2 = o - h, v3 = c - n
        let squares = SIMD4<Float>((v0 * v0).sum(), (v1 * v1).sum(), (v2 * v2).sum(), (v3 * v3).sum())
        let r = squares.squareRoot()
        if r[0] < DSSPConstants.minimalDistance || r[1] < DSSPConstants.minimalDistance || r[2] < DSSPConstants.minimalDistance
            || r[3] < DSSPConstants.minimalDistance { return Float(DSSPConstants.minimumEnergy) }
        // 1/rON + 1/rCH − 1/rOH − 1/rCN over one division (double precision, as DSSP computes it).
        let rON = Double(r[0]), rCH = Double(r[1]), rOH = Double(r[2]), rCN = Double(r[3])
        let p01 = rON * rCH, p23 = rOH * rCN
        let sum = ((rON + rCH) * p23 - (rOH + rCN) * p01) / (p01 * p23)
        // Rounded to 0.001 (half away from zero) and floored at −9.9, as in DSSP.
        let milli = DSSPConstants.coupling * 1000 * sum
        guard milli.magnitude < 1e12 else { return 0 }  // non-finite input coordinates
        let e = Double(Int64(milli + (milli < 0 ? -0.5 : 0.5))) / 1000
        return Float(max(e, DSSPConstants.minimumEnergy))
    }
}
