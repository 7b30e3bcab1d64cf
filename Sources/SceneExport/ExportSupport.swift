// Shared pieces of the scene writers: the scene as the writers see it (sanitised, with only what is
// drawn), transforms, colour conversion, fast binary and text output.

// MARK: - Vector helpers

@inline(__always) func dot3(_ a: SIMD3<Float>, _ b: SIMD3<Float>) -> Float { a.x * b.x + a.y * b.y + a.z * b.z }

@inline(__always) func cross3(_ a: SIMD3<Float>, _ b: SIMD3<Float>) -> SIMD3<Float> {
    SIMD3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
}

@inline(__always) func isFinite3(_ v: SIMD3<Float>) -> Bool { v.x.isFinite && v.y.isFinite && v.z.isFinite }

/// `v` scaled to unit length, or nil when it has none (zero, subnormal or not finite).
@inline(__always) func unit3(_ v: SIMD3<Float>) -> SIMD3<Float>? {
    let l2 = dot3(v, v)
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
        let det = dot3(c0, cross3(c1, c2))
        mirrors = det < 0
        let s: Float = mirrors ? -1 : 1
        // Columns of det·M⁻ᵀ are c1×c2, c2×c0, c0×c1; the sign keeps normals pointing the same way.
        n0 = cross3(c1, c2) * s; n1 = cross3(c2, c0) * s; n2 = cross3(c0, c1) * s
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
            let f = cross3(positions[b] - positions[a], positions[c] - positions[a])
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

// MARK: - Colour conversion

enum SRGB {
    /// linear → sRGB-encoded at 4096 steps over 0...1, interpolated linearly between them (error < 1e-5
    /// past the toe, exact on the linear toe), built once without any math library.
    private static let table: [Float] = (0...4096).map { i in
        let x = Double(i) / 4096
        if x <= 0.0031308 { return Float(12.92 * x) }
        let r = root12(x)
        return Float(1.055 * r * r * r * r * r - 0.055)
    }

    /// x^(1/12) for x in (0, 1] by Newton's method from above (monotone, so it stops when it stalls).
    private static func root12(_ x: Double) -> Double {
        var y = 1.0
        for _ in 0..<200 {
            var y11 = y
            for _ in 0..<10 { y11 *= y }
            let next = y - (y11 * y - x) / (12 * y11)
            if !(next < y) { break }
            y = next
        }
        return y
    }

    /// Linear 0...1 (clamped) to sRGB-encoded 0...1 (the display space MTL, PLY and COLLADA colours use).
    static func encode(_ linear: Float) -> Float {
        let c = clamp01(linear) * 4096
        let i = min(Int(c), 4095)
        let f = c - Float(i)
        return table[i] + (table[i + 1] - table[i]) * f
    }

    static func encode(_ c: SIMD4<Float>) -> SIMD4<Float> { SIMD4(encode(c.x), encode(c.y), encode(c.z), clamp01(c.w)) }
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

/// UTF-8 text built in a growable buffer, with fast number formatting (digits are produced by
/// division by the constant 10 only, written backwards into place).
struct TextWriter: ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private(set) var count = 0

    init(capacity: Int) {
        self.capacity = max(capacity, 256)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    /// The text written, as bytes.
    consuming func finish() -> [UInt8] { [UInt8](UnsafeBufferPointer(start: base, count: count)) }

    @inline(__always) private mutating func reserve(_ n: Int) { if count + n > capacity { grow(n) } }

    @inline(never) private mutating func grow(_ n: Int) {
        let newCapacity = max(capacity * 2, count + n)
        let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        bigger.update(from: base, count: count)
        base.deallocate()
        base = bigger
        capacity = newCapacity
    }

    @inline(__always) mutating func byte(_ b: UInt8) {
        reserve(1)
        base[count] = b
        count += 1
    }

    @inline(__always) mutating func put(_ s: StaticString) {
        let n = s.utf8CodeUnitCount
        reserve(n)
        let src = s.utf8Start
        for i in 0..<n { base[count + i] = src[i] }
        count += n
    }
    mutating func put(_ s: String) {
        var s = s
        s.withUTF8 { raw($0) }
    }

    private mutating func raw(_ b: UnsafeBufferPointer<UInt8>) {
        guard let src = b.baseAddress, b.count > 0 else { return }
        reserve(b.count)
        (base + count).update(from: src, count: b.count)
        count += b.count
    }

    /// Decimal digits of `v` (at most 20).
    @inline(__always) private static func digitCount(_ v: UInt64) -> Int {
        var n = 1
        var limit: UInt64 = 10
        while n < 20 && v >= limit { n += 1; limit &*= 10 }
        return n
    }

    /// Writes `v` as `whole` digits (at least one, zero-padded) and, when `decimals` > 0, a point and
    /// the last `decimals` digits as the fraction.
    @inline(__always) private mutating func fixed(_ v: UInt64, wholeDigits: Int, decimals: Int) {
        let total = wholeDigits + (decimals > 0 ? decimals + 1 : 0)
        reserve(total)
        var p = base + count + total
        var rest = v
        Self.backwards(&p, &rest, digits: decimals)
        if decimals > 0 { p -= 1; p.pointee = 46 }
        Self.backwards(&p, &rest, digits: wholeDigits)
        count += total
    }

    /// "00" "01" … "99".
    private static let pairs: StaticString =
        "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"

    /// Writes the last `digits` decimal digits of `rest` ending just before `p`, two at a time; moves
    /// `p` back over them and divides them off `rest`.
    @inline(__always) private static func backwards(_ p: inout UnsafeMutablePointer<UInt8>, _ rest: inout UInt64, digits: Int) {
        let table = pairs.utf8Start
        var left = digits
        while left >= 2 {
            let q = rest / 100
            let r = Int(truncatingIfNeeded: rest &- q &* 100) &* 2
            p -= 2
            p[0] = table[r]; p[1] = table[r + 1]
            rest = q
            left -= 2
        }
        if left == 1 {
            let q = rest / 10
            p -= 1
            p.pointee = 48 &+ UInt8(truncatingIfNeeded: rest &- q &* 10)
            rest = q
        }
    }

    mutating func int(_ v: Int) {
        if v < 0 { byte(45) }
        let m = v.magnitude
        fixed(UInt64(m), wholeDigits: Self.digitCount(UInt64(m)), decimals: 0)
    }

    /// 10^k for k in 0...15, exact (a switch over literals: no array, so no retain or lazy-init check).
    @inline(__always) fileprivate static func pow10(_ k: Int) -> Double {
        switch k {
        case 0: 1
        case 1: 1e1
        case 2: 1e2
        case 3: 1e3
        case 4: 1e4
        case 5: 1e5
        case 6: 1e6
        case 7: 1e7
        case 8: 1e8
        case 9: 1e9
        case 10: 1e10
        case 11: 1e11
        case 12: 1e12
        case 13: 1e13
        case 14: 1e14
        default: 1e15
        }
    }

    /// e with 10^e <= a < 10^(e+1), for 1e-4 <= a < 1e9.
    @inline(__always) fileprivate static func decade(_ a: Double) -> Int {
        if a < 1 {
            return a < 1e-2 ? (a < 1e-3 ? -4 : -3) : (a < 1e-1 ? -2 : -1)
        }
        if a < 1e3 { return a < 1e1 ? 0 : (a < 1e2 ? 1 : 2) }
        var e = 3
        var limit = 1e4
        while e < 8 && a >= limit { e += 1; limit *= 10 }
        return e
    }

    /// `x` rounded to `significant` digits (1...9, clamped), without trailing zeros: plain notation from 1e-4
    /// to below 1e9, else like "1.5e-7". Non-finite values are written as 0 (files must stay parseable).
    mutating func number(_ x: Float, significant: Int = 6) {
        guard x.isFinite, x != 0 else { byte(48); return }
        let significant = min(max(significant, 1), 9)
        let a = Double(x.magnitude)
        if a >= 1e-4 && a < 1e9 {
            let e = Self.decade(a)
            var decimals = max(0, significant - 1 - e)
            var m = UInt64(a * Self.pow10(decimals) + 0.5)
            var whole = e < 0 ? 1 : e + 1
            if m >= UInt64(Self.pow10(decimals + whole)) { whole += 1 }  // rounded up into the next decade
            while decimals > 0 && m % 10 == 0 { m /= 10; decimals -= 1 }
            if x < 0 { byte(45) }
            fixed(m, wholeDigits: whole, decimals: decimals)
            return
        }
        var e = 0
        var y = a
        while y >= 10 { y /= 10; e += 1 }
        while y < 1 { y *= 10; e -= 1 }
        var decimals = significant - 1
        var m = UInt64(y * Self.pow10(decimals) + 0.5)
        if m >= UInt64(Self.pow10(significant)) { m /= 10; e += 1 }
        while decimals > 0 && m % 10 == 0 { m /= 10; decimals -= 1 }
        if x < 0 { byte(45) }
        fixed(m, wholeDigits: 1, decimals: decimals)
        byte(101)
        int(e)
    }

    /// 10^k for k in 0...19 as an integer.
    @inline(__always) private static func pow10i(_ k: Int) -> UInt64 {
        var r: UInt64 = 1
        for _ in 0..<min(k, 19) { r &*= 10 }
        return r
    }

    /// How numbers of one array (a mesh's coordinates, unit normals, colours) are written: with a fixed
    /// number of decimals, so all get the same absolute precision and no per-number scaling is needed.
    struct Fixed {
        /// 0...9 decimals, or -1: fall back to `significant` digits per number.
        let decimals: Int
        let scale: Double
        let significant: Int

        init(decimals: Int) {
            self.decimals = min(max(decimals, 0), 9)
            scale = TextWriter.pow10(self.decimals)
            significant = 6
        }

        /// Enough decimals for `significant` digits of the largest magnitude; numbers far smaller than
        /// 1e-4 (a scene in the wrong unit) fall back to significant digits per number.
        init(magnitude: Float, significant: Int = 6) {
            let a = Double(magnitude)
            if a.isFinite && a >= 1e-4 && a < 1e9 {
                decimals = min(max(significant - 1 - TextWriter.decade(a), 0), 9)
                scale = TextWriter.pow10(decimals)
            } else if a.isFinite && a >= 1e9 {
                decimals = 0; scale = 1
            } else {
                decimals = -1; scale = 1
            }
            self.significant = significant
        }
    }

    /// `x` with `format`'s decimals, trailing zeros dropped ("0.25", "-3", "0").
    mutating func number(_ x: Float, _ format: Fixed) {
        guard format.decimals >= 0 else { number(x, significant: format.significant); return }
        guard x.isFinite else { byte(48); return }
        let a = Double(x.magnitude)
        guard a < 1e9 else { number(x, significant: 9); return }
        var m = UInt64(a * format.scale + 0.5)
        if m == 0 { byte(48); return }
        var decimals = format.decimals
        while decimals > 0 && m % 10 == 0 { m /= 10; decimals -= 1 }
        var whole = 1
        var limit = Self.pow10i(decimals + 1)
        while whole < 19 && m >= limit { whole += 1; limit &*= 10 }
        if x < 0 { byte(45) }
        fixed(m, wholeDigits: whole, decimals: decimals)
    }

    /// A JSON string literal.
    mutating func jsonString(_ s: String) {
        byte(34)
        for b in s.utf8 {
            switch b {
            case 34: put("\\\"")
            case 92: put("\\\\")
            case 10: put("\\n")
            case 13: put("\\r")
            case 9: put("\\t")
            case 0..<32:
                put("\\u00")
                byte((b >> 4) + 48)
                let low = b & 15
                byte(low < 10 ? 48 + low : 87 + low)
            default: byte(b)
            }
        }
        byte(34)
    }

    /// Text for XML content or attribute values: markup characters escaped, control characters that
    /// XML 1.0 forbids written as spaces.
    mutating func xml(_ s: String) {
        for b in s.utf8 {
            switch b {
            case 38: put("&amp;")
            case 60: put("&lt;")
            case 62: put("&gt;")
            case 34: put("&quot;")
            case 39: put("&apos;")
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
