/// A scene of triangle meshes placed by nodes, independent of molecules: the writers turn it into
/// GLB, USDZ, OBJ, STL, DAE or PLY. Units are metres, Y is up.
public struct TriangleScene: Sendable, Equatable {
    public var meshes: [TriangleMesh] = []
    public var materials: [Material] = []
    /// Placements of meshes; a mesh placed by several nodes is stored once (instancing).
    public var nodes: [Node] = []
    public var name = "scene"
    /// Frames shown one after another (an NMR ensemble's models): each the indices of the nodes it
    /// shows, every node in at most one; empty for a still scene. A GLB carries them as an animation
    /// (`GLBWriter`); the other formats show the first frame (`firstFrame`).
    public var frames: [[Int]] = []
    /// How long each frame shows, in seconds.
    public var frameSeconds: Float = 0.25

    public init(name: String = "scene") { self.name = name }

    public var triangleCount: Int { nodes.reduce(0) { $0 + meshes[$1.mesh].triangleCount } }

    /// Adds `other`'s meshes and nodes, their names prefixed with `namePrefix`, its parts keeping
    /// their material indices (this scene's materials); returns the range of its nodes here.
    @discardableResult
    public mutating func append(_ other: TriangleScene, namePrefix: String) -> Range<Int> {
        let meshBase = meshes.count, nodeBase = nodes.count
        meshes += other.meshes.map { mesh in
            var m = mesh
            m.name = namePrefix + mesh.name
            return m
        }
        nodes += other.nodes.map { node in
            var n = node
            n.mesh += meshBase
            n.name = namePrefix + node.name
            return n
        }
        return nodeBase..<nodes.count
    }

    /// The scene as its first frame shows it (itself when it has no frames): for formats that carry
    /// no animation.
    public var firstFrame: TriangleScene {
        guard let first = frames.first else { return self }
        var still = self
        still.frames = []
        still.nodes = first.filter { nodes.indices.contains($0) }.map { nodes[$0] }
        return still
    }
}

/// Indexed triangles with per-vertex normals and colours, split into parts by material.
public struct TriangleMesh: Sendable, Equatable {
    public var name: String
    public var positions: [SIMD3<Float>] = []
    /// Unit normals, one per vertex.
    public var normals: [SIMD3<Float>] = []
    /// Linear RGBA in 0...1, one per vertex (optional: empty when the parts' materials colour it).
    /// When present they replace the materials' RGB; their alpha multiplies the material's alpha.
    public var colors: [SIMD4<Float>] = []
    /// What each vertex draws, one per vertex (optional: empty when the mesh does not say): for a
    /// molecule, the index of the atom in its model (a cartoon's vertices name their residue's traced
    /// atom, a surface's the nearest atom). The GLB for the web app carries them as
    /// `EXT_mesh_features` feature ids, so a tap names what it touched.
    public var features: [UInt32] = []
    /// The feature id of a vertex that draws nothing in particular.
    public static let noFeature = UInt32.max
    /// Triangle corner indices into the vertex arrays, three per triangle.
    public var indices: [UInt32] = []
    /// Ranges of triangles (not indices) drawn with one material each; together they cover all triangles.
    public var parts: [Part] = []

    public struct Part: Sendable, Equatable {
        public var triangles: Range<Int>
        public var material: Int
        public init(triangles: Range<Int>, material: Int) { self.triangles = triangles; self.material = material }
    }

    public init(name: String) { self.name = name }

    public var triangleCount: Int { indices.count / 3 }
    public var vertexCount: Int { positions.count }
}

/// A physically based material, as glTF's metallic-roughness and USD's UsdPreviewSurface share.
public struct Material: Sendable, Equatable {
    public var name: String
    /// Linear RGBA base colour.
    public var baseColor: SIMD4<Float>
    public var metallic: Float
    public var roughness: Float
    public init(name: String, baseColor: SIMD4<Float>, metallic: Float = 0, roughness: Float = 0.5) {
        self.name = name; self.baseColor = baseColor; self.metallic = metallic; self.roughness = roughness
    }
}

/// A mesh placed in the scene by a rigid transform with uniform scale (column-major 4×4).
public struct Node: Sendable, Equatable {
    public var name: String
    public var mesh: Int
    public var transform: [Float]
    public init(name: String, mesh: Int, transform: [Float] = Node.identity) {
        self.name = name; self.mesh = mesh; self.transform = transform
    }
    public static let identity: [Float] = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]
}

/// What `TriangleScene.validate()` found wrong, at most `SceneValidationError.limit` problems.
public struct SceneValidationError: Error, Sendable, Equatable, CustomStringConvertible {
    public static let limit = 20
    public var problems: [String]
    public init(problems: [String]) { self.problems = problems }
    public var description: String { problems.joined(separator: "; ") }
}

extension TriangleScene {
    /// Checks that the arrays line up, indices and material/mesh references are in range, parts cover
    /// every triangle exactly once, numbers are finite, normals unit, colours in 0...1 and transforms
    /// affine. The writers also accept a scene that fails (they skip meshes with out-of-range indices,
    /// nodes with bad transforms or mesh references, triangles outside the parts, and repair normals),
    /// but only a scene that passes is written exactly as given.
    public func validate() throws(SceneValidationError) {
        var problems: [String] = []
        func report(_ p: @autoclosure () -> String) -> Bool {
            if problems.count < SceneValidationError.limit { problems.append(p()) }
            return problems.count < SceneValidationError.limit
        }
        func finite(_ v: SIMD3<Float>) -> Bool { v.x.isFinite && v.y.isFinite && v.z.isFinite }
        func inUnit(_ x: Float) -> Bool { x >= 0 && x <= 1 }
        meshes: for (m, mesh) in meshes.enumerated() {
            let label = "mesh \(m) (\(mesh.name))"
            let n = mesh.vertexCount
            if mesh.normals.count != n { if !report("\(label): \(mesh.normals.count) normals for \(n) vertices") { break } }
            if !mesh.colors.isEmpty && mesh.colors.count != n {
                if !report("\(label): \(mesh.colors.count) colours for \(n) vertices") { break }
            }
            if !mesh.features.isEmpty && mesh.features.count != n {
                if !report("\(label): \(mesh.features.count) feature ids for \(n) vertices") { break }
            }
            if mesh.indices.count % 3 != 0 {
                if !report("\(label): \(mesh.indices.count) indices is not a multiple of 3") { break }
            }
            if let i = mesh.indices.firstIndex(where: { Int($0) >= n }) {
                if !report("\(label): index \(mesh.indices[i]) at \(i) is not below the vertex count \(n)") { break }
            }
            if let i = mesh.positions.firstIndex(where: { !finite($0) }) {
                if !report("\(label): position \(i) is not finite") { break }
            }
            if let i = mesh.normals.firstIndex(where: { v in
                let l = (v.x * v.x + v.y * v.y + v.z * v.z).squareRoot()
                return !(abs(l - 1) <= 1e-3)
            }) {
                if !report("\(label): normal \(i) is not of unit length") { break }
            }
            if let i = mesh.colors.firstIndex(where: { c in !(inUnit(c.x) && inUnit(c.y) && inUnit(c.z) && inUnit(c.w)) }) {
                if !report("\(label): colour \(i) is not in 0...1") { break }
            }
            let t = mesh.triangleCount
            if t > 0 && mesh.parts.isEmpty { if !report("\(label): has triangles but no parts") { break } }
            var next = 0
            for (k, part) in mesh.parts.sorted(by: { $0.triangles.lowerBound < $1.triangles.lowerBound }).enumerated() {
                if part.material < 0 || part.material >= materials.count {
                    if !report("\(label): a part uses material \(part.material) of \(materials.count)") { break meshes }
                }
                if part.triangles.lowerBound != next {
                    let what = part.triangles.lowerBound < next ? "overlaps the previous one" : "leaves a gap before it"
                    if !report("\(label): part \(k) (triangles \(part.triangles)) \(what)") { break meshes }
                }
                next = max(next, part.triangles.upperBound)
            }
            if !mesh.parts.isEmpty && next != t {
                if !report("\(label): parts end at triangle \(next), the mesh has \(t)") { break }
            }
        }
        for (k, mat) in materials.enumerated() {
            let c = mat.baseColor
            if !(inUnit(c.x) && inUnit(c.y) && inUnit(c.z) && inUnit(c.w) && inUnit(mat.metallic) && inUnit(mat.roughness)) {
                if !report("material \(k) (\(mat.name)): colour, metallic or roughness outside 0...1") { break }
            }
        }
        for (k, node) in nodes.enumerated() {
            let label = "node \(k) (\(node.name))"
            if node.mesh < 0 || node.mesh >= meshes.count {
                if !report("\(label): mesh \(node.mesh) of \(meshes.count)") { break }
            }
            let m = node.transform
            if m.count != 16 {
                if !report("\(label): transform has \(m.count) numbers, not 16") { break }
            } else if !m.allSatisfy({ $0.isFinite }) {
                if !report("\(label): transform is not finite") { break }
            } else if m[3] != 0 || m[7] != 0 || m[11] != 0 || m[15] != 1 {
                if !report("\(label): transform is not affine (last row must be 0 0 0 1)") { break }
            }
        }
        var framed = Set<Int>()
        for (f, frame) in frames.enumerated() {
            if let k = frame.first(where: { !nodes.indices.contains($0) || !framed.insert($0).inserted }) {
                if !report("frame \(f): node \(k) is not a node, or is in another frame too") { break }
            }
        }
        if !frames.isEmpty && !(frameSeconds.isFinite && frameSeconds > 0) { _ = report("frames last \(frameSeconds) s") }
        if !problems.isEmpty { throw SceneValidationError(problems: problems) }
    }
}

extension TriangleScene {
    /// The box holding every placed vertex (node transforms applied), or nil for an empty scene.
    public func worldBounds() -> (lower: SIMD3<Float>, upper: SIMD3<Float>)? {
        var lo = SIMD3<Float>(repeating: .infinity), hi = SIMD3<Float>(repeating: -.infinity)
        for node in nodes where node.mesh >= 0 && node.mesh < meshes.count && node.transform.count == 16 {
            let t = node.transform
            for p in meshes[node.mesh].positions {
                let q = SIMD3(t[0] * p.x + t[4] * p.y + t[8] * p.z + t[12], t[1] * p.x + t[5] * p.y + t[9] * p.z + t[13],
                              t[2] * p.x + t[6] * p.y + t[10] * p.z + t[14])
                lo = pointwiseMin(lo, q); hi = pointwiseMax(hi, q)
            }
        }
        return lo.x.isFinite && hi.x.isFinite ? (lo, hi) : nil
    }
}
