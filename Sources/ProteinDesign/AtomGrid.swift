/// Placed atoms bucketed in cubic cells, grown as pieces are placed, for the builder's clash and
/// contact queries (a query visits the 27 cells around a point, so radii must not exceed a cell).
struct AtomGrid {
    struct Entry {
        var position: SIMD3<Double>
        var residue: Int32
        var kind: AtomKind
    }

    let cellSize: Double
    private var cells: [Int64: [Int32]] = [:]
    private(set) var entries: [Entry] = []

    init(cellSize: Double) { self.cellSize = cellSize }

    @inline(__always) private func key(_ x: Int64, _ y: Int64, _ z: Int64) -> Int64 {
        // 21 bits per axis around an offset: ±1,048,576 cells, far beyond any chain of 2,000 residues.
        ((x + 1 << 20) & 0x1F_FFFF) << 42 | ((y + 1 << 20) & 0x1F_FFFF) << 21 | ((z + 1 << 20) & 0x1F_FFFF)
    }

    @inline(__always) private func cell(_ p: SIMD3<Double>) -> (Int64, Int64, Int64) {
        (Int64((p.x / cellSize).rounded(.down)), Int64((p.y / cellSize).rounded(.down)), Int64((p.z / cellSize).rounded(.down)))
    }

    mutating func insert(_ position: SIMD3<Double>, residue: Int, kind: AtomKind) {
        let (x, y, z) = cell(position)
        cells[key(x, y, z), default: []].append(Int32(entries.count))
        entries.append(Entry(position: position, residue: Int32(residue), kind: kind))
    }

    /// Takes out the atoms of `residue` when they were the last inserted (a hairpin's search turns
    /// the first strand's last residue, placed just before).
    mutating func removeTrailing(residue: Int) {
        while let last = entries.last, last.residue == Int32(residue) {
            let (x, y, z) = cell(last.position)
            cells[key(x, y, z)]?.removeLast()
            entries.removeLast()
        }
    }

    /// Calls `body` with every entry in the cells around `p` (the caller tests the distance);
    /// `body` returns false to stop early.
    @inline(__always)
    func visit(near p: SIMD3<Double>, _ body: (Entry) -> Bool) {
        let (cx, cy, cz) = cell(p)
        for dz in -1...1 { for dy in -1...1 { for dx in -1...1 {
            guard let bucket = cells[key(cx + Int64(dx), cy + Int64(dy), cz + Int64(dz))] else { continue }
            for index in bucket where !body(entries[Int(index)]) { return }
        } } }
    }
}

/// Which atom an entry is: backbone N and O pairs may come as close as a hydrogen bond.
enum AtomKind: UInt8 {
    case n, ca, c, o, cb, sideChain

    /// Closest approach allowed between atoms of residues at least two apart: 3.0 Å, except an
    /// N···O pair at 2.6 Å, the short end of a backbone hydrogen bond.
    @inline(__always) static func minimumDistance(_ a: AtomKind, _ b: AtomKind) -> Double {
        (a == .n && b == .o) || (a == .o && b == .n) ? 2.6 : 3.0
    }
}
