import Geometry

/// Marching-cubes triangulation of one grid cell, derived once from the cube's geometry rather than
/// written out as a table.
///
/// Corner `c` of a cell sits at offset `(c & 1, c >> 1 & 1, c >> 2 & 1)`; a corner is "inside" when
/// its value is above the iso-level. Edge `e` runs along axis `e / 4`; its lower corner has the bits
/// of the other two axes (`(axis + 1) % 3`, `(axis + 2) % 3`) set from `e % 4`.
///
/// For each of the 256 cases the generator cuts every face of the cube into segments joining the
/// crossed edges (on a face with all four edges crossed, each inside corner is cut off on its own:
/// the decision depends only on the face, so the two cells sharing it agree and the surface is
/// watertight), orients each segment so that the inside lies on a fixed side, chains the segments
/// into closed loops and fans each loop into triangles. Triangles wind counterclockwise seen from
/// outside (the low-value side).
enum SurfaceMarchingCubes {
    struct Tables: Sendable {
        /// Lower and upper corner of each of the 12 edges.
        var edgeCorners: [(UInt8, UInt8)] = []
        /// Edge indices, three per triangle, of case `c`: `triangleEdges[triangleStart[c] ..< triangleStart[c + 1]]`.
        var triangleEdges: [UInt8] = []
        var triangleStart: [Int32] = []
    }

    static let tables: Tables = makeTables()

    @inline(__always) static func cornerOffset(_ c: Int) -> SIMD3<Int> { SIMD3(c & 1, (c >> 1) & 1, (c >> 2) & 1) }

    static func makeTables() -> Tables {
        var t = Tables()
        // Edges and the two faces each lies on (face id = axis * 2 + side).
        var edgeFaces: [(Int, Int)] = []
        var edgeBetween = [[Int]](repeating: [Int](repeating: -1, count: 8), count: 8)
        for axis in 0..<3 {
            let b = (axis + 1) % 3, c = (axis + 2) % 3
            for k in 0..<4 {
                let lo = ((k & 1) << b) | (((k >> 1) & 1) << c)
                let hi = lo | (1 << axis)
                edgeBetween[lo][hi] = t.edgeCorners.count
                edgeBetween[hi][lo] = t.edgeCorners.count
                t.edgeCorners.append((UInt8(lo), UInt8(hi)))
                edgeFaces.append((b * 2 + (k & 1), c * 2 + ((k >> 1) & 1)))
            }
        }
        func point(_ c: Int) -> SIMD3<Double> {
            let o = cornerOffset(c)
            return SIMD3(Double(o.x), Double(o.y), Double(o.z))
        }
        func midpoint(_ e: Int) -> SIMD3<Double> { (point(Int(t.edgeCorners[e].0)) + point(Int(t.edgeCorners[e].1))) / 2 }

        for config in 0..<256 {
            t.triangleStart.append(Int32(t.triangleEdges.count))
            let inside = { (c: Int) -> Bool in config & (1 << c) != 0 }
            var next = [Int](repeating: -1, count: 12)
            for axis in 0..<3 {
                let b = (axis + 1) % 3, c = (axis + 2) % 3
                for side in 0..<2 {
                    var normal = SIMD3<Double>(0, 0, 0)
                    normal[axis] = side == 0 ? -1 : 1
                    // Corners in cyclic order around the face.
                    let ring = [(0, 0), (1, 0), (1, 1), (0, 1)].map { (u, v) in (side << axis) | (u << b) | (v << c) }
                    var segments: [(Int, Int, Int)] = []  // (edge, edge, an inside corner beside them)
                    var crossed: [(edge: Int, insideCorner: Int)] = []
                    for i in 0..<4 {
                        let p = ring[i], q = ring[(i + 1) % 4]
                        if inside(p) != inside(q) { crossed.append((edgeBetween[p][q], inside(p) ? p : q)) }
                    }
                    if crossed.count == 2 {
                        segments.append((crossed[0].edge, crossed[1].edge, crossed[0].insideCorner))
                    } else if crossed.count == 4 {
                        for i in 0..<4 where inside(ring[i]) {
                            let prev = ring[(i + 3) % 4], nxt = ring[(i + 1) % 4]
                            segments.append((edgeBetween[prev][ring[i]], edgeBetween[ring[i]][nxt], ring[i]))
                        }
                    }
                    for (e1, e2, q) in segments {
                        let p1 = midpoint(e1), p2 = midpoint(e2)
                        let m = (p1 + p2) / 2 - point(q)  // from the inside towards the outside
                        if dot(p2 - p1, cross(m, normal)) > 0 { next[e1] = e2 } else { next[e2] = e1 }
                    }
                }
            }
            // Chain the segments into loops and fan each loop.
            var used = [Bool](repeating: false, count: 12)
            for start in 0..<12 where next[start] >= 0 && !used[start] {
                var loop: [Int] = []
                var e = start
                while e >= 0 && !used[e] {
                    used[e] = true
                    loop.append(e)
                    e = next[e]
                }
                guard loop.count >= 3 else { continue }
                // Start the fan where no diagonal joins two edges of one face (such a diagonal would
                // lie in the face, where the neighbouring cell may draw the same edge).
                func sharesFace(_ a: Int, _ b: Int) -> Bool {
                    let fa = edgeFaces[a], fb = edgeFaces[b]
                    return fa.0 == fb.0 || fa.0 == fb.1 || fa.1 == fb.0 || fa.1 == fb.1
                }
                let n = loop.count
                var rotation = 0
                for r in 0..<n {
                    var ok = true
                    for i in 2..<(n - 1) where sharesFace(loop[r], loop[(r + i) % n]) { ok = false; break }
                    if ok { rotation = r; break }
                }
                let l = (0..<n).map { loop[($0 + rotation) % n] }
                for i in 1..<(n - 1) { t.triangleEdges += [UInt8(l[0]), UInt8(l[i]), UInt8(l[i + 1])] }
            }
        }
        t.triangleStart.append(Int32(t.triangleEdges.count))
        return t
    }
}
