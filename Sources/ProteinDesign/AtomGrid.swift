import Molecule

/// Placed atoms bucketed in cubic cells, grown as pieces are placed, for the builder's clash and
/// contact queries (a query visits the 27 cells around a point, so radii must not exceed a cell).
struct AtomGrid {
    struct Entry {
        var position: SIMD3<Double>
        var residue: Int32
        var kind: AtomKind
        /// The entry's cell, packed: a bucket may hold other cells' entries too.
        var cell: Int64
    }

    let cellSize: Double
    /// Cells hashed into a fixed table of buckets: cells that share a bucket only cost the caller
    /// a few more distance tests, and finding a bucket is arithmetic, not a dictionary lookup (the
    /// builder's clash checks spend most of their time here).
    private var buckets: [[Int32]]
    private let mask: Int
    private(set) var entries: [Entry] = []

    /// `buckets`: a power of two; about the number of atoms expected is plenty.
    init(cellSize: Double, buckets: Int = 1 << 13) {
        self.cellSize = cellSize
        self.buckets = [[Int32]](repeating: [], count: buckets)
        mask = buckets - 1
    }

    @inline(__always) private func bucket(_ x: Int, _ y: Int, _ z: Int) -> Int {
        (x &* 73_856_093 ^ y &* 19_349_663 ^ z &* 83_492_791) & mask
    }

    @inline(__always) private func key(_ x: Int, _ y: Int, _ z: Int) -> Int64 {
        // 21 bits per axis around an offset: ±1,048,576 cells, far beyond any chain of 2,000 residues.
        Int64((x + 1 << 20) & 0x1F_FFFF) << 42 | Int64((y + 1 << 20) & 0x1F_FFFF) << 21 | Int64((z + 1 << 20) & 0x1F_FFFF)
    }

    @inline(__always) private func cell(_ p: SIMD3<Double>) -> (Int, Int, Int) {
        (Int((p.x / cellSize).rounded(.down)), Int((p.y / cellSize).rounded(.down)), Int((p.z / cellSize).rounded(.down)))
    }

    mutating func insert(_ position: SIMD3<Double>, residue: Int, kind: AtomKind) {
        let (x, y, z) = cell(position)
        buckets[bucket(x, y, z)].append(Int32(entries.count))
        entries.append(Entry(position: position, residue: Int32(residue), kind: kind, cell: key(x, y, z)))
    }

    /// Takes out the atoms of `residue` when they were the last inserted (a hairpin's search turns
    /// the first strand's last residue, placed just before).
    mutating func removeTrailing(residue: Int) {
        while let last = entries.last, last.residue == Int32(residue) {
            let (x, y, z) = cell(last.position)
            buckets[bucket(x, y, z)].removeLast()
            entries.removeLast()
        }
    }

    /// Calls `body` with every entry in the cells around `p` (the caller tests the distance);
    /// `body` returns false to stop early.
    @inline(__always)
    func visit(near p: SIMD3<Double>, _ body: (Entry) -> Bool) {
        let (cx, cy, cz) = cell(p)
        for dz in -1...1 { for dy in -1...1 { for dx in -1...1 {
            let (x, y, z) = (cx + dx, cy + dy, cz + dz)
            let wanted = key(x, y, z)
            for index in buckets[bucket(x, y, z)] {
                let entry = entries[Int(index)]
                if entry.cell == wanted && !body(entry) { return }
            }
        } } }
    }
}

/// Which atom an entry is: backbone N and O pairs may come as close as a hydrogen bond; a polar
/// hydrogen (on N or O) may come closer to others than one on carbon. Side-chain atoms are told
/// apart by element only where hydrogens are compared with them (their N and O are smaller).
enum AtomKind: UInt8 {
    case n, ca, c, o, cb, sideChain, sideChainNitrogen, sideChainOxygen, hydrogen, polarHydrogen

    static func sideChain(_ element: Element) -> AtomKind {
        element == .nitrogen ? .sideChainNitrogen : element == .oxygen ? .sideChainOxygen : .sideChain
    }

    /// Closest approach allowed between atoms of residues at least two apart (`BackboneClash`).
    @inline(__always) static func minimumDistance(_ a: AtomKind, _ b: AtomKind) -> Double {
        BackboneClash.minimumDistance(nitrogenAndOxygen: (a == .n && b == .o) || (a == .o && b == .n))
    }
}
