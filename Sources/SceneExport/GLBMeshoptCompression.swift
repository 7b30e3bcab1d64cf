import CMeshOptimizer

/// `EXT_meshopt_compression` for GLB buffer views, with meshoptimizer's own encoders (the
/// extension's reference implementation): the attribute codec (mode ATTRIBUTES, header 0xa0) for
/// vertex views and the triangle codec (mode TRIANGLES, 0xe1) for index views; normals go through
/// the octahedral filter first (two 8-bit components carry the direction), as gltfpack's `-cc`
/// does, which saves another third on them.
enum GLBMeshoptCompression {
    /// meshoptimizer 0.18 writes version 0 of the triangle codec unless told otherwise; the
    /// extension requires version 1. The setting is global, so it is made once, before any use.
    private static let indexCodecVersion: Void = meshopt_encodeIndexVersion(1)

    static func compress(_ view: GLBView) -> [UInt8] {
        if let triangles = view.triangles {
            _ = indexCodecVersion
            let bound = meshopt_encodeIndexBufferBound(triangles.count, max(view.vertexCount, 1))
            var out = [UInt8](repeating: 0, count: bound)
            let written = out.withUnsafeMutableBufferPointer { o in
                triangles.withUnsafeBufferPointer { meshopt_encodeIndexBuffer(o.baseAddress, bound, $0.baseAddress, triangles.count) }
            }
            out.removeLast(bound - written)
            return out
        }
        var bytes = view.bytes
        if let normals = view.unitVectors, view.stride == 4 {
            var floats = [Float](repeating: 0, count: 4 * normals.count)
            for (i, v) in normals.enumerated() {
                floats[4 * i] = v.x
                floats[4 * i + 1] = v.y
                floats[4 * i + 2] = v.z
            }
            bytes.withUnsafeMutableBytes { out in
                floats.withUnsafeBufferPointer { meshopt_encodeFilterOct(out.baseAddress, normals.count, 4, 8, $0.baseAddress) }
            }
        }
        let bound = meshopt_encodeVertexBufferBound(view.count, view.stride)
        var out = [UInt8](repeating: 0, count: bound)
        let written = out.withUnsafeMutableBufferPointer { o in
            bytes.withUnsafeBytes { meshopt_encodeVertexBuffer(o.baseAddress, bound, $0.baseAddress, view.count, view.stride) }
        }
        out.removeLast(bound - written)
        return out
    }

    /// The mesh with each part's triangles in vertex-cache order (meshoptimizer's strip-friendly
    /// optimizeVertexCacheStrip) and its vertices in first-use order (`VertexStreams.fetchOrdered`):
    /// faster for the GPU, and smaller once compressed. Parts keep their ranges; vertices no
    /// triangle uses are dropped.
    static func reordered(_ mesh: PreparedMesh) -> PreparedMesh {
        let used = (mesh.indices.count / 3) * 3
        let n = mesh.vertexCount
        guard used > 0, n > 0 else { return mesh }
        var indices = Array(mesh.indices[0..<used])
        indices.withUnsafeMutableBufferPointer { all in
            for part in mesh.parts {
                let slice = UnsafeMutableBufferPointer(rebasing: all[(3 * part.triangles.lowerBound)..<(3 * part.triangles.upperBound)])
                let source = Array(slice)
                source.withUnsafeBufferPointer { meshopt_optimizeVertexCacheStrip(slice.baseAddress, $0.baseAddress, source.count, n) }
            }
        }
        let ordered = VertexStreams(positions: mesh.positions, normals: mesh.normals, colors: mesh.colors, features: mesh.features,
                                    indices: indices).fetchOrdered()
        var result = mesh
        result.positions = ordered.positions
        result.normals = ordered.normals
        result.colors = ordered.colors
        result.features = ordered.features
        result.indices = ordered.indices
        return result
    }
}
