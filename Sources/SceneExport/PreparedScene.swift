import Geometry

// The scene as the writers see it: sanitised, with only what is drawn, materials resolved.

/// A material as written: one of the scene's, or its variant for vertex-coloured meshes (white base
/// colour, since the vertex colours replace its RGB), or the default for parts without a valid one.
struct ResolvedMaterial: Hashable {
    var name: String
    /// Linear RGBA, clamped to 0...1.
    var baseColor: SIMD4<Float>
    var metallic: Float
    var roughness: Float
    /// Needs blending: the base colour or a vertex colour has alpha below 1.
    var blend: Bool
}

struct PreparedPart {
    var triangles: Range<Int>
    /// Index into `PreparedScene.materials`.
    var material: Int
}

struct PreparedMesh {
    /// Index of the mesh in the scene.
    var source: Int
    var name: String
    /// Finite (non-finite coordinates replaced by 0).
    var positions: [SIMD3<Float>]
    /// Unit length, one per vertex.
    var normals: [SIMD3<Float>]
    /// Linear RGBA clamped to 0...1, one per vertex, or empty.
    var colors: [SIMD4<Float>]
    /// What each vertex draws (`TriangleMesh.features`), one per vertex, or empty.
    var features: [UInt32]
    /// The mesh's indices (all below the vertex count); only whole triangles are used.
    var indices: [UInt32]
    /// Non-empty, each range non-empty and inside the mesh's triangles.
    var parts: [PreparedPart]
    var vertexCount: Int { positions.count }
    var drawnTriangleCount: Int { parts.reduce(0) { $0 + $1.triangles.count } }
}

struct PreparedNode {
    var name: String
    /// Index into `PreparedScene.meshes`.
    var mesh: Int
    var transform: [Float]
    var affine: Affine
}

/// The scene reduced to what is drawn: meshes that some valid node places and that have at least one
/// triangle with every index in range; nodes placing them; the materials their parts use (deduplicated
/// by content, in order of first use). Everything is in scene order, so output is deterministic.
struct PreparedScene {
    var name: String
    var meshes: [PreparedMesh] = []
    var materials: [ResolvedMaterial] = []
    var nodes: [PreparedNode] = []
    /// `TriangleScene.frames` in `nodes`' indices (empty: a still scene; else two or more).
    var frames: [[Int]] = []
    var frameSeconds: Float = 0.25

    static let defaultMaterial = Material(name: "default", baseColor: SIMD4(0.8, 0.8, 0.8, 1))

    /// - Parameter useVertexColors: false drops vertex colours (for formats that cannot show them), so
    ///   the parts keep their materials' colours.
    init(_ scene: TriangleScene, useVertexColors: Bool = true) {
        name = scene.name
        var affines: [Affine?] = scene.nodes.map { Affine($0.transform) }
        var placed = [Bool](repeating: false, count: scene.meshes.count)
        for (k, node) in scene.nodes.enumerated() where affines[k] != nil {
            if node.mesh >= 0 && node.mesh < scene.meshes.count { placed[node.mesh] = true } else { affines[k] = nil }
        }
        var materialIndex: [ResolvedMaterial: Int] = [:]
        var meshSlot = [Int](repeating: -1, count: scene.meshes.count)
        for (m, mesh) in scene.meshes.enumerated() where placed[m] {
            guard let prepared = Self.prepare(mesh, source: m, scene: scene, useVertexColors: useVertexColors,
                                              materials: &materials, materialIndex: &materialIndex) else { continue }
            meshSlot[m] = meshes.count
            meshes.append(prepared)
        }
        var nodeSlot = [Int](repeating: -1, count: scene.nodes.count)
        for (k, node) in scene.nodes.enumerated() {
            guard let affine = affines[k], meshSlot[node.mesh] >= 0 else { continue }
            nodeSlot[k] = nodes.count
            nodes.append(PreparedNode(name: node.name, mesh: meshSlot[node.mesh], transform: node.transform, affine: affine))
        }
        // Frames of the nodes drawn, each node in one frame at most; none unless there are two.
        var framed = Set<Int>()
        let kept = scene.frames.map { frame in
            frame.compactMap { k -> Int? in
                guard scene.nodes.indices.contains(k), nodeSlot[k] >= 0, framed.insert(nodeSlot[k]).inserted else { return nil }
                return nodeSlot[k]
            }
        }
        if kept.count > 1, scene.frameSeconds.isFinite, scene.frameSeconds > 0 {
            frames = kept
            frameSeconds = scene.frameSeconds
        }
    }

    private static func prepare(_ mesh: TriangleMesh, source: Int, scene: TriangleScene, useVertexColors: Bool,
                                materials: inout [ResolvedMaterial],
                                materialIndex: inout [ResolvedMaterial: Int]) -> PreparedMesh? {
        let n = mesh.vertexCount
        let triangles = mesh.indices.count / 3
        guard triangles > 0, n > 0 else { return nil }
        var maxIndex: UInt32 = 0
        for i in mesh.indices { maxIndex = max(maxIndex, i) }
        guard Int(maxIndex) < n else { return nil }

        var rawParts: [(Range<Int>, Int)] = []
        if mesh.parts.isEmpty {
            rawParts = [(0..<triangles, -1)]
        } else {
            for part in mesh.parts {
                let r = part.triangles.clamped(to: 0..<triangles)
                if !r.isEmpty { rawParts.append((r, part.material)) }
            }
        }
        guard !rawParts.isEmpty else { return nil }

        var positions = mesh.positions
        if !positions.allSatisfy(isFinite3) {
            for i in positions.indices where !isFinite3(positions[i]) {
                let p = positions[i]
                positions[i] = SIMD3(p.x.isFinite ? p.x : 0, p.y.isFinite ? p.y : 0, p.z.isFinite ? p.z : 0)
            }
        }
        let normals = unitNormals(mesh, positions: positions)

        var colors: [SIMD4<Float>] = []
        var vertexAlphaBelowOne = false
        if useVertexColors && mesh.colors.count == n {
            colors.reserveCapacity(n)
            for c in mesh.colors {
                let q = SIMD4(clamp01(c.x), clamp01(c.y), clamp01(c.z), clamp01(c.w))
                if q.w < 1 { vertexAlphaBelowOne = true }
                colors.append(q)
            }
        }

        var parts: [PreparedPart] = []
        for (range, m) in rawParts {
            let source = (m >= 0 && m < scene.materials.count) ? scene.materials[m] : defaultMaterial
            var base = SIMD4(clamp01(source.baseColor.x), clamp01(source.baseColor.y),
                             clamp01(source.baseColor.z), clamp01(source.baseColor.w))
            if !colors.isEmpty { base.x = 1; base.y = 1; base.z = 1 }
            let resolved = ResolvedMaterial(name: source.name, baseColor: base, metallic: clamp01(source.metallic),
                                            roughness: clamp01(source.roughness),
                                            blend: base.w < 1 || vertexAlphaBelowOne)
            let index: Int
            if let found = materialIndex[resolved] {
                index = found
            } else {
                index = materials.count
                materials.append(resolved)
                materialIndex[resolved] = index
            }
            parts.append(PreparedPart(triangles: range, material: index))
        }
        return PreparedMesh(source: source, name: mesh.name, positions: positions, normals: normals,
                            colors: colors, features: mesh.features.count == n ? mesh.features : [], indices: mesh.indices, parts: parts)
    }

    /// The mesh's normals renormalised; where one is missing, zero or not finite, the area-weighted
    /// normal of the triangles around the vertex, and (0, 0, 1) where even that is zero.
    private static func unitNormals(_ mesh: TriangleMesh, positions: [SIMD3<Float>]) -> [SIMD3<Float>] {
        let n = positions.count
        var out = [SIMD3<Float>](repeating: SIMD3(0, 0, 1), count: n)
        var bad: [Int] = []
        if mesh.normals.count == n {
            for i in 0..<n {
                if let u = unit3(mesh.normals[i]) { out[i] = u } else { bad.append(i) }
            }
            if bad.isEmpty { return out }
        } else {
            bad = Array(0..<n)
        }
        var sums = [SIMD3<Float>](repeating: .zero, count: n)
        let idx = mesh.indices
        var k = 0
        while k + 2 < idx.count {
            let a = Int(idx[k]), b = Int(idx[k + 1]), c = Int(idx[k + 2])
            let f = cross(positions[b] - positions[a], positions[c] - positions[a])
            sums[a] += f; sums[b] += f; sums[c] += f
            k += 3
        }
        for i in bad { out[i] = unit3(sums[i]) ?? SIMD3(0, 0, 1) }
        return out
    }
}
