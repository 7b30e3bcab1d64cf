import Geometry

/// DSSP's β-bridges, ladders and sheets (E and B), on the working state of `DSSP.swift`.
extension DSSPState {

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
                guard slot.partner != .max && slot.energy < DSSPConstants.maxHBondEnergy else { return }
                let p = Int(slot.partner)
                for j in (p - 1)...(p + 1) where j >= i + 3 && j + 1 < count { candidates.append(j) }
            }
            for k in (i - 1)...(i + 1) {
                let b = bonds[k]
                consider(b.acceptor0); consider(b.acceptor1); consider(b.donor0); consider(b.donor1)
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
}
