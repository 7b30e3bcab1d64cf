import CMeshOptimizer
import SceneExport

/// Brings a mesh down to a triangle target with meshoptimizer's simplifier (edge collapses ordered
/// by quadric error, keeping the topology, and seams where normals or colours split a vertex), the
/// field's standard; then keeps only the vertices the remaining triangles use. Used when even the
/// lightest tessellation and style leave a model over its budget (a virus capsid for AR).
enum MeshSimplifier {
    struct Result {
        var mesh: TriangleMesh
        /// The largest deviation from the input surface that the simplifier allowed, in the mesh's
        /// units (Å for molecules).
        var deviation: Float
    }

    static func simplify(_ mesh: TriangleMesh, targetTriangles: Int) -> Result {
        let triangles = mesh.triangleCount
        let vertexCount = mesh.vertexCount
        guard targetTriangles < triangles, vertexCount > 0,
              mesh.indices.allSatisfy({ Int($0) < vertexCount }) else { return Result(mesh: mesh, deviation: 0) }
        let indexCount = 3 * triangles
        let targetIndices = 3 * max(targetTriangles, 1)
        let stride = MemoryLayout<SIMD3<Float>>.stride
        var kept = [UInt32](repeating: 0, count: indexCount)
        var relativeError: Float = 0
        var scale: Float = 0

        let count = mesh.positions.withUnsafeBufferPointer { positions -> Int in
            let floats = UnsafeRawPointer(positions.baseAddress!).assumingMemoryBound(to: Float.self)
            scale = meshopt_simplifyScale(floats, vertexCount, stride)
            return mesh.indices.withUnsafeBufferPointer { indices in
                kept.withUnsafeMutableBufferPointer { out in
                    // No error bound (1 = the whole extent): the budget decides, the error is reported.
                    var n = meshopt_simplify(out.baseAddress, indices.baseAddress, indexCount, floats, vertexCount,
                                             stride, targetIndices, 1, 0, &relativeError)
                    if n > targetIndices {
                        // Topology stopped it short (many small pieces): collapse regardless of topology.
                        n = meshopt_simplifySloppy(out.baseAddress, indices.baseAddress, indexCount, floats, vertexCount,
                                                   stride, targetIndices, 1, &relativeError)
                    }
                    return n
                }
            }
        }
        kept.removeLast(indexCount - count)

        // The vertices the remaining triangles use, in order of first use.
        // Collapses keep a subset of the vertices where they were, so each still names what it drew.
        let ordered = VertexStreams(positions: mesh.positions, normals: mesh.normals, colors: mesh.colors, features: mesh.features,
                                    indices: kept).fetchOrdered()
        var result = TriangleMesh(name: mesh.name)
        result.positions = ordered.positions
        result.normals = ordered.normals
        result.colors = ordered.colors
        result.features = ordered.features
        result.indices = ordered.indices
        result.parts = [.init(triangles: 0..<(count / 3), material: mesh.parts.first?.material ?? 0)]
        return Result(mesh: result, deviation: relativeError * scale)
    }
}
