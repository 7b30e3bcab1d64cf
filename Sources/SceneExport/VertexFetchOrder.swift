import CMeshOptimizer

/// A mesh's vertex streams and triangle indices, for renumbering its vertices; used by the GLB
/// writer (before compression) and by the simplifier (to drop the vertices it left unused).
public struct VertexStreams: Sendable {
    public var positions: [SIMD3<Float>]
    /// One per vertex, or empty.
    public var normals: [SIMD3<Float>]
    /// One per vertex, or empty.
    public var colors: [SIMD4<Float>]
    /// What each vertex draws (`TriangleMesh.features`), one per vertex, or empty.
    public var features: [UInt32]
    /// All below the vertex count.
    public var indices: [UInt32]

    public init(positions: [SIMD3<Float>], normals: [SIMD3<Float>], colors: [SIMD4<Float>], features: [UInt32] = [], indices: [UInt32]) {
        self.positions = positions
        self.normals = normals
        self.colors = colors
        self.features = features
        self.indices = indices
    }

    /// The same triangles with the vertices numbered in order of first use (meshoptimizer's
    /// optimizeVertexFetchRemap): the order a GPU fetches them in, and neighbouring values that
    /// differ little, which codecs and gzip compress. Vertices no index uses are dropped; a stream
    /// that is not one per vertex comes back empty.
    public func fetchOrdered() -> VertexStreams {
        let n = positions.count
        var remap = [UInt32](repeating: 0, count: n)
        let kept = remap.withUnsafeMutableBufferPointer { r in
            indices.withUnsafeBufferPointer { meshopt_optimizeVertexFetchRemap(r.baseAddress, $0.baseAddress, $0.count, n) }
        }
        var result = VertexStreams(positions: [SIMD3<Float>](repeating: .zero, count: kept),
                                   normals: normals.count == n ? [SIMD3<Float>](repeating: .zero, count: kept) : [],
                                   colors: colors.count == n ? [SIMD4<Float>](repeating: .zero, count: kept) : [],
                                   features: features.count == n ? [UInt32](repeating: 0, count: kept) : [],
                                   indices: [])
        for v in 0..<n where remap[v] != UInt32.max {
            let to = Int(remap[v])
            result.positions[to] = positions[v]
            if !result.normals.isEmpty { result.normals[to] = normals[v] }
            if !result.colors.isEmpty { result.colors[to] = colors[v] }
            if !result.features.isEmpty { result.features[to] = features[v] }
        }
        result.indices = indices.map { remap[Int($0)] }
        return result
    }
}
