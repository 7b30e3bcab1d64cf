import Geometry
import TextOutput

// Shared pieces of the scene writers: the scene as the writers see it (sanitised, with only what is
// drawn), transforms, colour conversion, fast binary and text output.

// MARK: - Vector helpers

@inline(__always) func isFinite3(_ v: SIMD3<Float>) -> Bool { v.x.isFinite && v.y.isFinite && v.z.isFinite }

/// `v` scaled to unit length, or nil when it has none (zero, subnormal or not finite).
@inline(__always) func unit3(_ v: SIMD3<Float>) -> SIMD3<Float>? {
    let l2 = dot(v, v)
    guard l2.isFinite, l2 > 1e-30 else { return nil }
    return v / l2.squareRoot()
}

/// A column-major 4×4 affine transform split into what baking needs: the linear part's columns, the
/// translation, the normal matrix (inverse transpose up to a positive scale) and whether it mirrors.
struct Affine {
    var c0: SIMD3<Float>, c1: SIMD3<Float>, c2: SIMD3<Float>, t: SIMD3<Float>
    var n0: SIMD3<Float>, n1: SIMD3<Float>, n2: SIMD3<Float>
    /// A negative determinant: baked triangles must swap two corners to keep facing outwards.
    var mirrors: Bool
    var isIdentity: Bool

    init?(_ m: [Float]) {
        guard m.count == 16, m.allSatisfy({ $0.isFinite }) else { return nil }
        c0 = SIMD3(m[0], m[1], m[2]); c1 = SIMD3(m[4], m[5], m[6]); c2 = SIMD3(m[8], m[9], m[10])
        t = SIMD3(m[12], m[13], m[14])
        let det = dot(c0, cross(c1, c2))
        mirrors = det < 0
        let s: Float = mirrors ? -1 : 1
        // Columns of det·M⁻ᵀ are c1×c2, c2×c0, c0×c1; the sign keeps normals pointing the same way.
        n0 = cross(c1, c2) * s; n1 = cross(c2, c0) * s; n2 = cross(c0, c1) * s
        isIdentity = m == Node.identity
    }

    @inline(__always) func point(_ p: SIMD3<Float>) -> SIMD3<Float> { c0 * p.x + c1 * p.y + c2 * p.z + t }

    @inline(__always) func normal(_ n: SIMD3<Float>) -> SIMD3<Float> {
        unit3(n0 * n.x + n1 * n.y + n2 * n.z) ?? n
    }
}

// MARK: - The scene as the writers see it

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
        for (k, node) in scene.nodes.enumerated() {
            guard let affine = affines[k], meshSlot[node.mesh] >= 0 else { continue }
            nodes.append(PreparedNode(name: node.name, mesh: meshSlot[node.mesh], transform: node.transform, affine: affine))
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
                            colors: colors, indices: mesh.indices, parts: parts)
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

@inline(__always) func clamp01(_ x: Float) -> Float { x.isNaN ? 0 : min(max(x, 0), 1) }

// MARK: - Per-vertex colour layout (for formats whose colours live on vertices)

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


/// 0...1 to 0...255, rounded to nearest (adding ½ and truncating: no libm call).
@inline(__always) func unorm8(_ x: Float) -> UInt8 { UInt8(clamp01(x) * 255 + 0.5) }

// MARK: - Binary output

/// Writes little-endian values into preallocated memory (unaligned stores are fine: SE-0349).
struct RawCursor {
    let base: UnsafeMutableRawPointer
    var offset = 0

    @inline(__always) mutating func u8(_ v: UInt8) { base.storeBytes(of: v, toByteOffset: offset, as: UInt8.self); offset += 1 }
    @inline(__always) mutating func u16(_ v: UInt16) {
        base.storeBytes(of: v.littleEndian, toByteOffset: offset, as: UInt16.self); offset += 2
    }
    @inline(__always) mutating func u32(_ v: UInt32) {
        base.storeBytes(of: v.littleEndian, toByteOffset: offset, as: UInt32.self); offset += 4
    }
    @inline(__always) mutating func f32(_ v: Float) { u32(v.bitPattern) }
    @inline(__always) mutating func vec3(_ v: SIMD3<Float>) { f32(v.x); f32(v.y); f32(v.z) }
    mutating func bytes(_ b: [UInt8]) {
        b.withUnsafeBytes { src in
            if let s = src.baseAddress { (base + offset).copyMemory(from: s, byteCount: src.count) }
        }
        offset += b.count
    }
    mutating func fill(_ v: UInt8, count: Int) {
        if count > 0 { (base + offset).initializeMemory(as: UInt8.self, repeating: v, count: count) }
        offset += count
    }
}

/// Exactly `count` bytes written by `body`, which must write all of them.
func makeBytes(count: Int, _ body: (inout RawCursor) -> Void) -> [UInt8] {
    if count == 0 { return [] }
    return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
        var cursor = RawCursor(base: UnsafeMutableRawPointer(buffer.baseAddress!))
        body(&cursor)
        precondition(cursor.offset == count, "scene writer wrote \(cursor.offset) bytes of \(count)")
        initialized = count
    }
}

// MARK: - Text output

/// How numbers of one array (a mesh's coordinates, unit normals, colours) are written in OBJ, PLY
/// and DAE: with a fixed number of decimals, so all get the same absolute precision and no
/// per-number scaling is needed.
struct DecimalFormat {
    /// 0...9 decimals, or -1: fall back to `significant` digits per number.
    let decimals: Int
    let scale: Double
    let significant: Int

    init(decimals: Int) {
        self.decimals = min(max(decimals, 0), 9)
        scale = TextBuffer.pow10(self.decimals)
        significant = 6
    }

    /// Enough decimals for `significant` digits of the largest magnitude; numbers far smaller than
    /// 1e-4 (a scene in the wrong unit) fall back to significant digits per number.
    init(magnitude: Float, significant: Int = 6) {
        let a = Double(magnitude)
        if a.isFinite && a >= 1e-4 && a < 1e9 {
            decimals = min(max(significant - 1 - TextBuffer.decade(a), 0), 9)
            scale = TextBuffer.pow10(decimals)
        } else if a.isFinite && a >= 1e9 {
            decimals = 0; scale = 1
        } else {
            decimals = -1; scale = 1
        }
        self.significant = significant
    }
}

extension TextBuffer.Cursor {
    /// `x` with `format`'s decimals, trailing zeros dropped ("0.25", "-3", "0").
    @inline(__always)
    mutating func number(_ x: Float, _ format: DecimalFormat) {
        guard format.decimals >= 0 else { significant(x, digits: format.significant); return }
        guard x.isFinite else { put(48); return }
        guard Double(x.magnitude) < 1e9 else { significant(x, digits: 9); return }
        rounded(x, scale: format.scale, decimals: format.decimals)
    }
}

extension TextBuffer {
    static let maxNumberBytes = Cursor.maxFloatBytes + 8

    /// `a b c` with `format`.
    mutating func numbers(_ v: SIMD3<Float>, _ format: DecimalFormat) {
        withSpace(3 * Self.maxNumberBytes + 2) { cursor in
            cursor.number(v.x, format); cursor.put(32); cursor.number(v.y, format); cursor.put(32); cursor.number(v.z, format)
        }
    }

    /// `a b c d` with `format`.
    mutating func numbers(_ v: SIMD4<Float>, _ format: DecimalFormat) {
        withSpace(4 * Self.maxNumberBytes + 3) { cursor in
            cursor.number(v.x, format); cursor.put(32); cursor.number(v.y, format); cursor.put(32)
            cursor.number(v.z, format); cursor.put(32); cursor.number(v.w, format)
        }
    }

    /// A JSON string literal.
    mutating func jsonString(_ s: String) { quoted(s, escapingControls: true) }

    /// Text for XML content or attribute values: markup characters escaped, control characters that
    /// XML 1.0 forbids written as spaces.
    mutating func xml(_ s: String) {
        for b in s.utf8 {
            switch b {
            case 38: text("&amp;")
            case 60: text("&lt;")
            case 62: text("&gt;")
            case 34: text("&quot;")
            case 39: text("&apos;")
            case 9, 10, 13: byte(b)
            case 0..<32, 127: byte(32)
            default: byte(b)
            }
        }
    }
}

/// A name usable as one whitespace-free token (OBJ and MTL names): whitespace and control characters
/// become underscores; an empty name becomes `fallback`.
func tokenName(_ s: String, fallback: String) -> String {
    var out: [UInt8] = []
    out.reserveCapacity(s.utf8.count)
    for b in s.utf8 { out.append(b <= 32 || b == 127 ? 95 : b) }
    return out.isEmpty ? fallback : String(decoding: out, as: UTF8.self)
}

/// Makes names unique by appending _2, _3, … to repeats (in order, so deterministic).
func uniqueNames(_ names: [String]) -> [String] {
    var used = Set<String>()
    return names.map { name in
        var candidate = name
        var k = 2
        while used.contains(candidate) { candidate = "\(name)_\(k)"; k += 1 }
        used.insert(candidate)
        return candidate
    }
}
