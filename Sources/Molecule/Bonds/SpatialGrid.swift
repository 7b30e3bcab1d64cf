/// A uniform grid over points for neighbour queries in linear time: points are bucketed by cell with
/// a counting sort, so building costs O(n) and a query visits the 27 cells around a point.
public struct SpatialGrid: Sendable {
    public let cellSize: Float
    let origin: SIMD3<Float>
    let dims: SIMD3<Int32>
    /// cellStart[c] ..< cellStart[c+1] index into `order`.
    let cellStart: [Int32]
    let order: [Int32]
    let points: [SIMD3<Float>]

    public init(points: [SIMD3<Float>], cellSize: Float) {
        self.points = points
        self.cellSize = max(cellSize, 0.5)
        guard let first = points.first else {
            origin = .zero; dims = SIMD3(1, 1, 1); cellStart = [0, 0]; order = []; scale = SIMD3(repeating: 1); return
        }
        var lo = first, hi = first
        for p in points { lo = pointwiseMin(lo, p); hi = pointwiseMax(hi, p) }
        origin = lo
        let extent = (hi - lo) / self.cellSize
        // Cap the cell count so sparse, huge boxes do not allocate gigabytes.
        // Rounding the cell count down keeps every cell at least `cellSize` wide.
        var d = SIMD3<Int32>(max(1, Int32(min(extent.x, 1000))), max(1, Int32(min(extent.y, 1000))), max(1, Int32(min(extent.z, 1000))))
        while Int(d.x) * Int(d.y) * Int(d.z) > max(8 * points.count, 1_000_000) { d = SIMD3(max(1, d.x / 2), max(1, d.y / 2), max(1, d.z / 2)) }
        dims = d
        let cellCount = Int(d.x) * Int(d.y) * Int(d.z)
        var counts = [Int32](repeating: 0, count: cellCount + 1)
        var cellOf = [Int32](repeating: 0, count: points.count)
        let scale = SIMD3<Float>(Float(d.x), Float(d.y), Float(d.z)) / pointwiseMax(hi - lo + 1e-3, SIMD3(repeating: 1e-3))
        for (i, p) in points.enumerated() {
            let c = SpatialGrid.cell(p, origin: lo, scale: scale, dims: d)
            cellOf[i] = c
            counts[Int(c) + 1] += 1
        }
        for c in 0..<cellCount { counts[c + 1] += counts[c] }
        var fill = counts
        var order = [Int32](repeating: 0, count: points.count)
        for i in 0..<points.count {
            let c = Int(cellOf[i])
            order[Int(fill[c])] = Int32(i)
            fill[c] += 1
        }
        cellStart = counts
        self.order = order
        self.scale = scale
    }

    let scale: SIMD3<Float>

    @inline(__always)
    static func cell(_ p: SIMD3<Float>, origin: SIMD3<Float>, scale: SIMD3<Float>, dims: SIMD3<Int32>) -> Int32 {
        let f = (p - origin) * scale
        let x = min(max(Int32(f.x), 0), dims.x - 1), y = min(max(Int32(f.y), 0), dims.y - 1), z = min(max(Int32(f.z), 0), dims.z - 1)
        return (z * dims.y + y) * dims.x + x
    }

    /// Points the 27 cells around a point may hold at `density` points per Å³: a limit for
    /// `forEachCandidate` that follows the grid's real cell size (cells grow on sparse, huge boxes;
    /// across a flat or thin box a cell counts as `cellSize` deep, the neighbourhood searched).
    public func candidateLimit(density: Float) -> Int {
        let edges = pointwiseMax(1 / scale, SIMD3(repeating: cellSize))
        let cellVolume = edges.x * edges.y * edges.z
        return max(64, Int(min(27 * cellVolume * density, 1e9)))
    }

    /// Calls `body(j)` for every point j within the cells around `p` (a superset of those within
    /// `cellSize`) until `body` returns false; the caller checks the exact distance. When the cells
    /// hold more than `limit` points nothing is visited: atoms are never packed that densely, so
    /// such input is degenerate (every atom at one place, a made-up lattice) and skipping it keeps
    /// the work linear. Returns how many points were visited.
    @inline(__always) @discardableResult
    public func forEachCandidate(near p: SIMD3<Float>, limit: Int = 4096, _ body: (Int) -> Bool) -> Int {
        let f = (p - origin) * scale
        guard f.x > -2, f.y > -2, f.z > -2, f.x < Float(dims.x) + 1, f.y < Float(dims.y) + 1, f.z < Float(dims.z) + 1 else { return 0 }
        let cx = Int32(f.x.rounded(.down)), cy = Int32(f.y.rounded(.down)), cz = Int32(f.z.rounded(.down))
        let x0 = max(cx - 1, 0), x1 = min(cx + 1, dims.x - 1)
        guard x0 <= x1 else { return 0 }
        var total = 0
        for z in stride(from: max(cz - 1, 0), through: min(cz + 1, dims.z - 1), by: 1) {
            for y in stride(from: max(cy - 1, 0), through: min(cy + 1, dims.y - 1), by: 1) {
                let row = (z * dims.y + y) * dims.x
                total += Int(cellStart[Int(row + x1) + 1] - cellStart[Int(row + x0)])
            }
        }
        guard total <= limit else { return 0 }
        var visited = 0
        for z in stride(from: max(cz - 1, 0), through: min(cz + 1, dims.z - 1), by: 1) {
            for y in stride(from: max(cy - 1, 0), through: min(cy + 1, dims.y - 1), by: 1) {
                let row = (z * dims.y + y) * dims.x
                let s = Int(cellStart[Int(row + x0)]), e = Int(cellStart[Int(row + x1) + 1])
                for k in s..<e {
                    visited += 1
                    guard body(Int(order[k])) else { return visited }
                }
            }
        }
        return visited
    }
}
