import Geometry
import SceneExport

// Mesh checks the mesh tests share (molecule meshes and stroke tubes).

/// Every triangle's geometric normal points the same way as its corners' normals.
public func windsOutward(_ mesh: TriangleMesh) -> Bool {
    for t in 0..<mesh.triangleCount {
        let i = (0..<3).map { Int(mesh.indices[3 * t + $0]) }
        let p = i.map { mesh.positions[$0] }
        let n = cross(p[1] - p[0], p[2] - p[0])
        let avg = mesh.normals[i[0]] + mesh.normals[i[1]] + mesh.normals[i[2]]
        if (n * avg).sum() <= 0 { return false }
    }
    return true
}

/// Problems with a mesh: unit normals, indices in range, array lengths, colours in 0...1.
public func meshProblems(_ mesh: TriangleMesh) -> [String] {
    var out: [String] = []
    if mesh.normals.count != mesh.vertexCount { out.append("normals count") }
    if mesh.colors.count != mesh.vertexCount { out.append("colors count") }
    if mesh.indices.count % 3 != 0 { out.append("indices not triangles") }
    if mesh.indices.contains(where: { Int($0) >= mesh.vertexCount }) { out.append("index out of range") }
    if mesh.normals.contains(where: { n in abs((n * n).sum().squareRoot() - 1) > 1e-4 }) { out.append("normal not unit") }
    if mesh.colors.contains(where: { c in c.min() < 0 || c.max() > 1 }) { out.append("colour out of 0...1") }
    if mesh.triangleCount > 0 && mesh.parts != [TriangleMesh.Part(triangles: 0..<mesh.triangleCount, material: 0)] {
        out.append("parts")
    }
    var scene = TriangleScene()
    scene.meshes = [mesh]
    scene.materials = [Material(name: "m", baseColor: SIMD4(1, 1, 1, 1))]
    scene.nodes = [Node(name: "n", mesh: 0)]
    do { try scene.validate() } catch { out.append("validate: \(error)") }
    return out
}
