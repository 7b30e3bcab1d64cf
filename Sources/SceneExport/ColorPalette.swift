/// Turns per-face colours into a palette of at most `maxColors` entries, so that a viewer that
/// ignores vertex colours (AR Quick Look ignores `displayColor`) can show them as one material per
/// entry.
///
/// - Each face's colour is the average of its three corners' linear RGBA colours (the colour at
///   the centroid under linear interpolation; exact when the corners agree, as on a mesh coloured
///   per atom).
/// - Colours are compared in a perceptual-ish space: the square root of each linear RGB channel
///   (close to sRGB's curve), alpha as is.
/// - Faces whose colours agree to 8 bits per channel in that space share an entry whose colour is
///   the mean of their exact colours. With at most `maxColors` such groups that is the palette, so
///   a few distinct colours come through exactly.
/// - With more, median cut splits the groups (weighted by face count; past 4096 groups they are
///   first merged into cells of 7, 6… bits per channel) into `maxColors` boxes, each box's mean
///   colour becomes an entry, and each group or cell takes the entry nearest to its own mean colour
///   (nearest-colour quantisation).
/// - Entries are numbered in the order their first face appears, so the output is deterministic.
struct ColorPalette {
    /// Linear RGBA, in 0...1.
    var colors: [SIMD4<Float>] = []
    /// For each face, its index into `colors`.
    var faceEntries: [Int32] = []

    /// - Parameters:
    ///   - colors: linear RGBA per vertex, in 0...1.
    ///   - indices: triangle corners (all below `colors.count`).
    ///   - triangles: the faces, in order: face k is the k-th triangle of these ranges.
    init(colors vertexColors: [SIMD4<Float>], indices: [UInt32], triangles: [Range<Int>], maxColors: Int) {
        let faceCount = triangles.reduce(0) { $0 + $1.count }
        let limit = max(1, maxColors)

        // Pass 1: group faces by their 8-bit key.
        var groupOfKey: [UInt32: Int32] = [:]
        var groupSums: [SIMD4<Double>] = []
        var groupCounts: [Int] = []
        var groupKeys: [UInt32] = []
        var faceGroup = [Int32](repeating: 0, count: faceCount)
        // Neighbouring faces mostly repeat a few keys: a small direct-mapped cache in front of
        // the dictionary saves most hash look-ups.
        var cacheKeys = [UInt32](repeating: 0, count: 256)
        var cacheGroups = [Int32](repeating: -1, count: 256)
        let sqrtTable = Self.sqrtByte
        var f = 0
        for range in triangles {
            for t in range {
                let ca = vertexColors[Int(indices[3 * t])]
                let cb = vertexColors[Int(indices[3 * t + 1])]
                let cc = vertexColors[Int(indices[3 * t + 2])]
                let color = Self.clamped((ca + cb + cc) / 3)
                let key = sqrtTable.withUnsafeBufferPointer { Self.key8(color, $0) }
                let slot = Int((key &* 0x9E37_79B1) >> 24)
                var group: Int32
                if cacheGroups[slot] >= 0 && cacheKeys[slot] == key {
                    group = cacheGroups[slot]
                } else if let g = groupOfKey[key] {
                    group = g
                } else {
                    group = Int32(groupSums.count)
                    groupOfKey[key] = group
                    groupSums.append(.zero)
                    groupCounts.append(0)
                    groupKeys.append(key)
                }
                cacheKeys[slot] = key
                cacheGroups[slot] = group
                groupSums[Int(group)] += SIMD4<Double>(color)
                groupCounts[Int(group)] += 1
                faceGroup[f] = group
                f += 1
            }
        }
        let groupCount = groupSums.count
        var groupMeans = [SIMD4<Float>](repeating: .zero, count: groupCount)
        for g in 0..<groupCount { groupMeans[g] = SIMD4<Float>(groupSums[g] / Double(groupCounts[g])) }

        // Map each group to a palette entry.
        var entryOfGroup = [Int32](repeating: 0, count: groupCount)
        var entryColors: [SIMD4<Float>]
        if groupCount <= limit {
            entryColors = groupMeans
            for g in 0..<groupCount { entryOfGroup[g] = Int32(g) }
        } else {
            (entryColors, entryOfGroup) = Self.reduce(groupKeys: groupKeys, sums: groupSums,
                                                      counts: groupCounts, limit: limit)
        }

        // Number the entries by first appearance, dropping any that no face took.
        var renumber = [Int32](repeating: -1, count: entryColors.count)
        var ordered: [SIMD4<Float>] = []
        faceEntries = faceGroup
        for f in 0..<faceCount {
            let e = Int(entryOfGroup[Int(faceGroup[f])])
            if renumber[e] < 0 {
                renumber[e] = Int32(ordered.count)
                ordered.append(entryColors[e])
            }
            faceEntries[f] = renumber[e]
        }
        colors = ordered
    }

    static func clamped(_ c: SIMD4<Float>) -> SIMD4<Float> {
        // Also maps NaN to 0 (comparisons with NaN are false).
        var r = SIMD4<Float>()
        for i in 0..<4 { r[i] = c[i] > 0 ? (c[i] < 1 ? c[i] : 1) : 0 }
        return r
    }

    /// Position in the comparison space: square root of linear RGB, alpha as is.
    static func perceptual(_ c: SIMD4<Float>) -> SIMD4<Float> {
        SIMD4<Float>(root(c.x), root(c.y), root(c.z), c.w)
    }

    /// Square root by Newton's method (`squareRoot()` may become a libm call, and this module
    /// links nothing but the standard library). Started above the root, the iterates fall
    /// monotonically until rounding stops them.
    static func root(_ x: Float) -> Float {
        guard x > 0 else { return 0 }
        let v = Double(x)
        var y = max(v, 1)
        while true {
            let next = (y + v / y) / 2
            if next >= y { return Float(y) }
            y = next
        }
    }

    /// `sqrtByte[i]` = round(255 × √(i / 65535)): the 8-bit perceptual code of a linear value,
    /// built from squared thresholds (no square roots needed).
    static let sqrtByte: [UInt8] = {
        var table = [UInt8](repeating: 0, count: 65536)
        var k = 0
        for i in 0..<65536 {
            let linear = Double(i) / 65535
            while k < 255 {
                let t = (Double(k) + 0.5) / 255
                if linear >= t * t { k += 1 } else { break }
            }
            table[i] = UInt8(k)
        }
        return table
    }()

    /// The 8-bit key of a colour in 0...1: perceptual RGB codes and 8-bit alpha.
    @inline(__always)
    static func key8(_ c: SIMD4<Float>, _ sqrtByte: UnsafeBufferPointer<UInt8>) -> UInt32 {
        // c is in 0...1, so adding 0.5 and truncating rounds to nearest.
        let i = c * 65535 + 0.5
        let r = UInt32(sqrtByte[Int(i.x)]), g = UInt32(sqrtByte[Int(i.y)]), b = UInt32(sqrtByte[Int(i.z)])
        return r << 24 | g << 16 | b << 8 | UInt32(c.w * 255 + 0.5)
    }

    private struct Cell {
        var key: UInt32
        var sum: SIMD4<Double>       // linear colour sum
        var weight: Int
        var position: SIMD4<Float>   // perceptual mean
    }

    /// Most cells median cut works on (8-bit groups are merged into coarser cells past this).
    static let maxCells = 4096

    /// Keeps the low `8 - shift` bits of each byte of a key shifted right by `shift`.
    static func channelMask(_ shift: UInt32) -> UInt32 {
        let byteMask = UInt32(0xFF) >> shift
        return byteMask | byteMask << 8 | byteMask << 16 | byteMask << 24
    }

    /// Median cut over the groups (merged into coarser cells when there are very many), then
    /// nearest-entry assignment of each cell.
    private static func reduce(groupKeys: [UInt32], sums: [SIMD4<Double>], counts: [Int],
                               limit: Int) -> ([SIMD4<Float>], [Int32]) {
        // Merge the 8-bit groups into cells of fewer bits per channel until at most
        // `maxCells` remain, which bounds the cost of median cut and of the nearest search.
        var shift: UInt32 = 0
        var cellKeys = Set(groupKeys)
        while cellKeys.count > maxCells && shift < 5 {
            shift += 1
            let mask = Self.channelMask(shift)
            cellKeys = Set(groupKeys.map { ($0 >> shift) & mask })
        }
        let mask = Self.channelMask(shift)
        var cellOfKey: [UInt32: Int] = [:]
        var cells: [Cell] = []
        var cellOfGroup = [Int](repeating: 0, count: groupKeys.count)
        for g in 0..<groupKeys.count {
            let key = (groupKeys[g] >> shift) & mask
            let c: Int
            if let existing = cellOfKey[key] {
                c = existing
            } else {
                c = cells.count
                cellOfKey[key] = c
                cells.append(Cell(key: key, sum: .zero, weight: 0, position: .zero))
            }
            cells[c].sum += sums[g]
            cells[c].weight += counts[g]
            cellOfGroup[g] = c
        }
        for c in 0..<cells.count {
            cells[c].position = perceptual(SIMD4<Float>(cells[c].sum / Double(cells[c].weight)))
        }

        var entries: [SIMD4<Float>] = []     // linear colours
        var entryPositions: [SIMD4<Float>] = []
        if cells.count <= limit {
            for cell in cells {
                entries.append(SIMD4<Float>(cell.sum / Double(cell.weight)))
                entryPositions.append(cell.position)
            }
        } else {
            // Median cut: boxes are ranges of `order` (indices into `cells`).
            var order = Array(0..<cells.count)
            var boxes: [(start: Int, end: Int, spread: Float, channel: Int)] = []
            func measure(_ start: Int, _ end: Int) -> (Float, Int) {
                var lo = SIMD4<Float>(repeating: .infinity), hi = SIMD4<Float>(repeating: -.infinity)
                for i in start..<end {
                    lo = pointwiseMin(lo, cells[order[i]].position)
                    hi = pointwiseMax(hi, cells[order[i]].position)
                }
                let range = hi - lo
                var channel = 0
                for k in 1..<4 where range[k] > range[channel] { channel = k }
                return (end - start > 1 ? range[channel] : -1, channel)
            }
            let (s0, ch0) = measure(0, order.count)
            boxes.append((0, order.count, s0, ch0))
            while boxes.count < limit {
                var pick = -1
                for (i, box) in boxes.enumerated() where box.spread > 0 {
                    if pick < 0 || box.spread > boxes[pick].spread { pick = i }
                }
                if pick < 0 { break }
                let box = boxes[pick]
                let k = box.channel
                order[box.start..<box.end].sort { a, b in
                    let pa = cells[a].position[k], pb = cells[b].position[k]
                    return pa != pb ? pa < pb : cells[a].key < cells[b].key
                }
                var total = 0
                for i in box.start..<box.end { total += cells[order[i]].weight }
                var running = 0
                var split = box.start + 1
                for i in box.start..<(box.end - 1) {
                    running += cells[order[i]].weight
                    split = i + 1
                    if 2 * running >= total { break }
                }
                let (sa, ca) = measure(box.start, split)
                let (sb, cb) = measure(split, box.end)
                boxes[pick] = (box.start, split, sa, ca)
                boxes.append((split, box.end, sb, cb))
            }
            for box in boxes {
                var sum = SIMD4<Double>.zero
                var weight = 0
                for i in box.start..<box.end {
                    sum += cells[order[i]].sum
                    weight += cells[order[i]].weight
                }
                let mean = SIMD4<Float>(sum / Double(weight))
                entries.append(mean)
                entryPositions.append(perceptual(mean))
            }
        }

        // Each cell takes the nearest entry.
        var entryOfCell = [Int32](repeating: 0, count: cells.count)
        for c in 0..<cells.count {
            let p = cells[c].position
            var best = 0
            var bestDistance = Float.infinity
            for e in 0..<entryPositions.count {
                let d = p - entryPositions[e]
                let distance = (d * d).sum()
                if distance < bestDistance {
                    bestDistance = distance
                    best = e
                }
            }
            entryOfCell[c] = Int32(best)
        }
        return (entries, cellOfGroup.map { entryOfCell[$0] })
    }
}
