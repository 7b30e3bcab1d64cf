import Geometry

/// A mesh's vertices and triangles for formats that colour vertices (PLY, OBJ with colours): every
/// vertex gets the colour it shows, which is its own colour when the mesh has vertex colours and else
/// its part's material colour. Where parts disagree (different material colours, or different material
/// alphas over vertex colours), each part gets its own copy of the vertices it uses.
struct ColoredLayout {
    /// Output vertex → mesh vertex; nil when it is the identity.
    var sourceVertex: [Int32]?
    /// Linear RGBA per output vertex.
    var colors: [SIMD4<Float>]
    /// Output triangles' corners; nil when they are the mesh's own indices.
    var indices: [UInt32]?
    /// The drawn triangles, as ranges of triangles in `indices` (or the mesh's indices).
    var triangleRanges: [Range<Int>]

    init(_ mesh: PreparedMesh, materials: [ResolvedMaterial]) {
        let n = mesh.vertexCount
        let hasColors = !mesh.colors.isEmpty
        func partColor(_ part: PreparedPart) -> SIMD4<Float> { materials[part.material].baseColor }
        let first = partColor(mesh.parts[0])
        let uniform = mesh.parts.allSatisfy { p in
            let c = partColor(p)
            return hasColors ? c.w == first.w : c == first
        }
        if uniform {
            sourceVertex = nil
            indices = nil
            triangleRanges = mesh.parts.map(\.triangles)
            if hasColors {
                colors = first.w == 1 ? mesh.colors : mesh.colors.map { SIMD4($0.x, $0.y, $0.z, $0.w * first.w) }
            } else {
                colors = [SIMD4<Float>](repeating: first, count: n)
            }
            return
        }
        var source: [Int32] = []
        var out: [SIMD4<Float>] = []
        var newIndices: [UInt32] = []
        newIndices.reserveCapacity(mesh.drawnTriangleCount * 3)
        var ranges: [Range<Int>] = []
        var remap = [Int32](repeating: -1, count: n)
        for part in mesh.parts {
            let pc = partColor(part)
            let start = source.count
            let firstTriangle = newIndices.count / 3
            for i in (part.triangles.lowerBound * 3)..<(part.triangles.upperBound * 3) {
                let v = Int(mesh.indices[i])
                if remap[v] < 0 {
                    remap[v] = Int32(source.count)
                    source.append(Int32(v))
                    if hasColors {
                        let c = mesh.colors[v]
                        out.append(SIMD4(c.x, c.y, c.z, c.w * pc.w))
                    } else {
                        out.append(pc)
                    }
                }
                newIndices.append(UInt32(remap[v]))
            }
            for k in start..<source.count { remap[Int(source[k])] = -1 }
            ranges.append(firstTriangle..<(newIndices.count / 3))
        }
        sourceVertex = source
        colors = out
        indices = newIndices
        triangleRanges = ranges
    }

    var vertexCount: Int { colors.count }
}
