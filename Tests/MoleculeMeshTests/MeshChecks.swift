import SceneExport

/// Geometry checks the mesh tests share.
func cross3(_ a: SIMD3<Float>, _ b: SIMD3<Float>) -> SIMD3<Float> {
    SIMD3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
}

/// Every triangle's geometric normal points the same way as its corners' normals.
func windsOutward(_ mesh: TriangleMesh) -> Bool {
    for t in 0..<mesh.triangleCount {
        let i = (0..<3).map { Int(mesh.indices[3 * t + $0]) }
        let p = i.map { mesh.positions[$0] }
        let n = cross3(p[1] - p[0], p[2] - p[0])
        let avg = mesh.normals[i[0]] + mesh.normals[i[1]] + mesh.normals[i[2]]
        if (n * avg).sum() <= 0 { return false }
    }
    return true
}
