import TextOutput

/// glTF 2.0 binary (.glb): the format AR viewers on Android and the web load directly.
///
/// Layout: a 12-byte header, a JSON chunk padded with spaces and a BIN chunk padded with zeros, both to
/// 4 bytes; one buffer. Each drawn mesh is stored once, however many nodes place it: per mesh one
/// bufferView each for POSITION, NORMAL, COLOR_0 (normalised unsigned-byte VEC4, linear, only when
/// the mesh has vertex colours) and indices (unsigned short below 65536 vertices, else unsigned int),
/// and one primitive per part, sharing the vertex accessors, with its own index accessor and
/// material. How POSITION and NORMAL are stored is the `Encoding`:
/// - `.quantized` (the default, `KHR_mesh_quantization`, which Scene Viewer, three.js and Filament
///   read): positions as unsigned 14-bit integers in a 4×UInt16 stride, which the node's matrix scales
///   and offsets back (one step is 1/16383 of the mesh's longest side: 18 µm on a 30 cm model);
///   normals as normalised signed bytes in a 4-byte stride.
/// - `.meshopt`: the same views, each compressed with meshoptimizer's codecs
///   (`EXT_meshopt_compression`, see `GLBMeshoptCompression`): for our own viewer and WebXR.
/// - `.float`: float VEC3 positions (exact min/max) and normals, no extension: for tools that read no
///   glTF extension.
/// With `features`, a mesh whose vertices say what they draw (`TriangleMesh.features`) carries them
/// as `EXT_mesh_features` feature ids (`_FEATURE_ID_0`, labelled "atom": unsigned shorts in a 4-byte
/// stride below 65535 atoms, else floats, exact to 2²⁴; the largest value of each is the null id),
/// an extension used, not required: a viewer that does not know it draws the model as before. Only
/// our own viewer asks for them; Scene Viewer's GLB stays without.
/// Nodes carry `matrix` unless identity (quantized files: always, with the dequantisation folded in)
/// and all belong to the one scene. Materials are metallic-roughness with `doubleSided: false`,
/// `alphaMode: BLEND` when alpha is below 1; a vertex-coloured mesh's parts use a white variant of
/// their material, since glTF multiplies COLOR_0 by the base colour factor. Meshes without triangles,
/// with indices out of range or placed by no valid node are left out; an empty scene gives a valid file
/// with one empty scene and no BIN chunk.
public enum GLBWriter {
    public enum Encoding: String, CaseIterable, Sendable {
        case quantized, meshopt, float
    }

    /// Positions are quantised to this many bits (gltfpack's default): finer than any phone shows,
    /// and fewer bits compress better.
    static let positionBits = 14

    public static func write(_ scene: TriangleScene) -> [UInt8] { write(scene, encoding: .quantized) }

    public static func write(_ scene: TriangleScene, encoding: Encoding, features: Bool = false) -> [UInt8] {
        var prepared = PreparedScene(scene)
        if !features { for m in prepared.meshes.indices { prepared.meshes[m].features = [] } }
        let quantized = encoding != .float
        if quantized { prepared.meshes = prepared.meshes.map(GLBMeshoptCompression.reordered) }

        // The vertex and index data of each mesh, as views of the buffer.
        var views: [GLBView] = []
        var layouts: [MeshLayout] = []
        for mesh in prepared.meshes {
            var l = MeshLayout()
            let n = mesh.vertexCount
            var lo = mesh.positions[0], hi = mesh.positions[0]
            for p in mesh.positions { lo = pointwiseMin(lo, p); hi = pointwiseMax(hi, p) }
            if quantized {
                let grid = PositionGrid(lo: lo, hi: hi, bits: positionBits)
                l.dequantize = grid.matrix
                var qlo = SIMD3<UInt16>(repeating: .max), qhi = SIMD3<UInt16>(repeating: 0)
                let bytes = makeBytes(count: n * 8) { out in
                    for p in mesh.positions {
                        let q = grid.quantize(p)
                        qlo = pointwiseMin(qlo, q); qhi = pointwiseMax(qhi, q)
                        out.u16(q.x); out.u16(q.y); out.u16(q.z); out.u16(0)
                    }
                }
                l.min = qlo.indices.map { String(qlo[$0]) }
                l.max = qhi.indices.map { String(qhi[$0]) }
                l.position = append(&views, GLBView(bytes: bytes, count: n, stride: 8, target: 34962))
                let normals = makeBytes(count: n * 4) { out in
                    for v in mesh.normals {
                        let q = SIMD3<Float>((v * 127).rounded(.toNearestOrAwayFromZero)).clamped(lowerBound: .init(repeating: -127),
                                                                                                   upperBound: .init(repeating: 127))
                        out.u32(UInt32(UInt8(bitPattern: Int8(q.x))) | UInt32(UInt8(bitPattern: Int8(q.y))) << 8
                                | UInt32(UInt8(bitPattern: Int8(q.z))) << 16)
                    }
                }
                var normalView = GLBView(bytes: normals, count: n, stride: 4, target: 34962)
                if encoding == .meshopt { normalView.unitVectors = mesh.normals }
                l.normal = append(&views, normalView)
            } else {
                // Exact: a Double's description parses back to the very float.
                l.min = [lo.x, lo.y, lo.z].map { Double($0).description }
                l.max = [hi.x, hi.y, hi.z].map { Double($0).description }
                let bytes = makeBytes(count: n * 12) { out in for p in mesh.positions { out.vec3(p) } }
                l.position = append(&views, GLBView(bytes: bytes, count: n, stride: 12, target: 34962, declaresStride: false))
                let normals = makeBytes(count: n * 12) { out in for v in mesh.normals { out.vec3(v) } }
                l.normal = append(&views, GLBView(bytes: normals, count: n, stride: 12, target: 34962, declaresStride: false))
            }
            if !mesh.colors.isEmpty {
                let colors = makeBytes(count: n * 4) { out in
                    for c in mesh.colors {
                        out.u32(UInt32(unorm8(c.x)) | UInt32(unorm8(c.y)) << 8 | UInt32(unorm8(c.z)) << 16 | UInt32(unorm8(c.w)) << 24)
                    }
                }
                l.color = append(&views, GLBView(bytes: colors, count: n, stride: 4, target: 34962, declaresStride: false))
            }
            if !mesh.features.isEmpty {
                let ids = FeatureIDs(mesh.features)
                l.features = ids
                l.feature = append(&views, GLBView(bytes: ids.bytes, count: n, stride: 4, target: 34962, declaresStride: ids.componentType != 5126))
            }
            l.wideIndices = n > 65535
            let used = (mesh.indices.count / 3) * 3
            let size = l.wideIndices ? 4 : 2
            let indices = makeBytes(count: used * size) { out in
                mesh.indices.withUnsafeBufferPointer { idx in
                    if l.wideIndices {
                        for k in 0..<used { out.u32(idx[k]) }
                    } else {
                        for k in 0..<used { out.u16(UInt16(truncatingIfNeeded: idx[k])) }
                    }
                }
            }
            l.index = append(&views, GLBView(bytes: indices, count: used, stride: size, target: 34963, declaresStride: false,
                                             triangles: Array(mesh.indices[0..<used]), vertexCount: n))
            layouts.append(l)
        }

        // An ensemble's frames: an animation's keys, after the meshes' views (GLBFrames).
        var frames = GLBFrames(prepared)
        if frames != nil { frames?.firstView = views.count; views += frames?.views() ?? [] }

        // The BIN chunk: the views themselves, or (meshopt) their compressed forms, each view then
        // pointing at a fallback buffer that holds no bytes.
        let compressed = encoding == .meshopt ? views.map { GLBMeshoptCompression.compress($0) } : []
        var binLength = 0
        var placed: [Int] = []
        for k in views.indices {
            placed.append(binLength)
            binLength += ((compressed.isEmpty ? views[k].bytes.count : compressed[k].count) + 3) & ~3
        }
        var fallbackOffsets: [Int] = []
        var fallbackLength = 0
        if !compressed.isEmpty {
            for v in views {
                fallbackOffsets.append(fallbackLength)
                fallbackLength += (v.bytes.count + 3) & ~3
            }
        }

        var j = TextBuffer(capacity: 1024 + prepared.nodes.count * 300 + prepared.meshes.count * 600)
        j.text("{\"asset\":{\"version\":\"2.0\",\"generator\":\"ProteinAR\"}")
        let withFeatures = layouts.contains { $0.feature >= 0 }
        if quantized && !prepared.meshes.isEmpty {
            let required = encoding == .meshopt ? "\"EXT_meshopt_compression\",\"KHR_mesh_quantization\"" : "\"KHR_mesh_quantization\""
            j.text(",\"extensionsUsed\":["); j.text(withFeatures ? "\"EXT_mesh_features\"," + required : required)
            j.text("],\"extensionsRequired\":["); j.text(required); j.byte(93)
        } else if withFeatures {
            j.text(",\"extensionsUsed\":[\"EXT_mesh_features\"]")
        }
        j.text(",\"scene\":0,\"scenes\":[{\"name\":")
        j.jsonString(prepared.name)
        if !prepared.nodes.isEmpty {
            j.text(",\"nodes\":[")
            for (i, k) in (frames?.roots ?? Array(prepared.nodes.indices)).enumerated() { if i > 0 { j.byte(44) }; j.int(k) }
            j.byte(93)
        }
        j.text("}]")

        if !prepared.nodes.isEmpty {
            j.text(",\"nodes\":[")
            for (k, node) in prepared.nodes.enumerated() {
                if k > 0 { j.byte(44) }
                j.text("{\"name\":"); j.jsonString(node.name)
                j.text(",\"mesh\":"); j.int(node.mesh)
                let matrix = layouts[node.mesh].dequantize.map { multiply(node.transform, $0) } ?? node.transform
                if layouts[node.mesh].dequantize != nil || !node.affine.isIdentity {
                    j.text(",\"matrix\":[")
                    for (i, v) in matrix.enumerated() { if i > 0 { j.byte(44) }; j.text(v.description) }
                    j.byte(93)
                }
                j.byte(125)
            }
            frames?.writeNodes(&j)
            j.byte(93)
        }

        var accessorCount = 0
        if !prepared.meshes.isEmpty {
            j.text(",\"meshes\":[")
            for (m, mesh) in prepared.meshes.enumerated() {
                if m > 0 { j.byte(44) }
                j.text("{\"name\":"); j.jsonString(mesh.name); j.text(",\"primitives\":[")
                let position = accessorCount, normal = accessorCount + 1
                var next = accessorCount + 2
                let color = layouts[m].color >= 0 ? next : -1
                if color >= 0 { next += 1 }
                let feature = layouts[m].feature >= 0 ? next : -1
                if feature >= 0 { next += 1 }
                accessorCount = next
                for (p, part) in mesh.parts.enumerated() {
                    if p > 0 { j.byte(44) }
                    j.text("{\"attributes\":{\"POSITION\":"); j.int(position)
                    j.text(",\"NORMAL\":"); j.int(normal)
                    if color >= 0 { j.text(",\"COLOR_0\":"); j.int(color) }
                    if feature >= 0 { j.text(",\"_FEATURE_ID_0\":"); j.int(feature) }
                    j.text("},\"indices\":"); j.int(accessorCount)
                    accessorCount += 1
                    j.text(",\"material\":"); j.int(part.material)
                    if let ids = layouts[m].features {
                        j.text(",\"extensions\":{\"EXT_mesh_features\":{\"featureIds\":[{\"featureCount\":"); j.int(ids.count)
                        j.text(",\"attribute\":0,\"nullFeatureId\":"); j.int(ids.null)
                        j.text(",\"label\":\"atom\"}]}}")
                    }
                    j.byte(125)
                }
                j.text("]}")
            }
            j.byte(93)
        }

        if !prepared.materials.isEmpty {
            j.text(",\"materials\":[")
            for (k, mat) in prepared.materials.enumerated() {
                if k > 0 { j.byte(44) }
                j.text("{\"name\":"); j.jsonString(mat.name)
                j.text(",\"pbrMetallicRoughness\":{\"baseColorFactor\":[")
                for i in 0..<4 { if i > 0 { j.byte(44) }; j.text(mat.baseColor[i].description) }
                j.text("],\"metallicFactor\":"); j.text(mat.metallic.description)
                j.text(",\"roughnessFactor\":"); j.text(mat.roughness.description)
                j.text("},\"doubleSided\":false")
                if mat.blend { j.text(",\"alphaMode\":\"BLEND\"") }
                j.byte(125)
            }
            j.byte(93)
        }

        if !prepared.meshes.isEmpty {
            j.text(",\"accessors\":[")
            var first = true
            for (mesh, l) in zip(prepared.meshes, layouts) {
                let n = mesh.vertexCount
                if !first { j.byte(44) }; first = false
                j.text("{\"bufferView\":"); j.int(l.position)
                j.text(quantized ? ",\"componentType\":5123,\"count\":" : ",\"componentType\":5126,\"count\":"); j.int(n)
                j.text(",\"type\":\"VEC3\",\"min\":[")
                j.text(l.min.joined(separator: ","))
                j.text("],\"max\":[")
                j.text(l.max.joined(separator: ","))
                j.text("]}")
                j.text(",{\"bufferView\":"); j.int(l.normal)
                j.text(quantized ? ",\"componentType\":5120,\"normalized\":true,\"count\":" : ",\"componentType\":5126,\"count\":")
                j.int(n); j.text(",\"type\":\"VEC3\"}")
                if l.color >= 0 {
                    j.text(",{\"bufferView\":"); j.int(l.color)
                    j.text(",\"componentType\":5121,\"normalized\":true,\"count\":"); j.int(n); j.text(",\"type\":\"VEC4\"}")
                }
                if let ids = l.features {
                    j.text(",{\"bufferView\":"); j.int(l.feature)
                    j.text(",\"componentType\":"); j.int(ids.componentType)
                    j.text(",\"count\":"); j.int(n); j.text(",\"type\":\"SCALAR\"}")
                }
                let size = l.wideIndices ? 4 : 2
                for part in mesh.parts {
                    j.text(",{\"bufferView\":"); j.int(l.index)
                    j.text(",\"byteOffset\":"); j.int(part.triangles.lowerBound * 3 * size)
                    j.text(",\"componentType\":"); j.int(l.wideIndices ? 5125 : 5123)
                    j.text(",\"count\":"); j.int(part.triangles.count * 3); j.text(",\"type\":\"SCALAR\"}")
                }
            }
            frames?.firstAccessor = accessorCount
            frames?.writeAccessors(&j)
            j.byte(93)
            j.text(",\"bufferViews\":[")
            for (k, v) in views.enumerated() {
                if k > 0 { j.byte(44) }
                j.text(compressed.isEmpty ? "{\"buffer\":0,\"byteOffset\":" : "{\"buffer\":1,\"byteOffset\":")
                j.int(compressed.isEmpty ? placed[k] : fallbackOffsets[k])
                j.text(",\"byteLength\":"); j.int(v.bytes.count)
                if v.declaresStride { j.text(",\"byteStride\":"); j.int(v.stride) }
                if v.target != 0 { j.text(",\"target\":"); j.int(v.target) }
                if !compressed.isEmpty {
                    j.text(",\"extensions\":{\"EXT_meshopt_compression\":{\"buffer\":0,\"byteOffset\":"); j.int(placed[k])
                    j.text(",\"byteLength\":"); j.int(compressed[k].count)
                    j.text(",\"byteStride\":"); j.int(v.stride)
                    j.text(",\"count\":"); j.int(v.count)
                    if v.unitVectors != nil { j.text(",\"filter\":\"OCTAHEDRAL\"") }
                    j.text(v.triangles == nil ? ",\"mode\":\"ATTRIBUTES\"}}" : ",\"mode\":\"TRIANGLES\"}}")
                }
                j.byte(125)
            }
            j.text("],\"buffers\":[{\"byteLength\":"); j.int(binLength); j.byte(125)
            if !compressed.isEmpty {
                j.text(",{\"byteLength\":"); j.int(fallbackLength)
                j.text(",\"extensions\":{\"EXT_meshopt_compression\":{\"fallback\":true}}}")
            }
            j.byte(93)
        }
        frames?.writeAnimation(&j)
        j.byte(125)
        while j.count % 4 != 0 { j.byte(32) }
        let json = j.finish()

        let total = 12 + 8 + json.count + (binLength == 0 ? 0 : 8 + binLength)
        return makeBytes(count: total) { out in
            out.u32(0x4654_6C67)  // "glTF"
            out.u32(2)
            out.u32(UInt32(total))
            out.u32(UInt32(json.count))
            out.u32(0x4E4F_534A)  // "JSON"
            out.bytes(json)
            guard binLength > 0 else { return }
            out.u32(UInt32(binLength))
            out.u32(0x004E_4942)  // "BIN\0"
            for k in views.indices {
                let bytes = compressed.isEmpty ? views[k].bytes : compressed[k]
                out.bytes(bytes)
                for _ in 0..<(((bytes.count + 3) & ~3) - bytes.count) { out.u8(0) }
            }
        }
    }

    private struct MeshLayout {
        var position = 0, normal = 0, color = -1, feature = -1, index = 0  // bufferView indices
        var features: FeatureIDs?
        var wideIndices = false
        /// Accessor bounds as written (integers for quantised positions).
        var min: [String] = [], max: [String] = []
        /// Quantised positions: the column-major matrix taking stored integers to mesh coordinates.
        var dequantize: [Float]?
    }

    private static func append(_ views: inout [GLBView], _ view: GLBView) -> Int {
        views.append(view)
        return views.count - 1
    }

    /// `a × b` for column-major 4×4 matrices.
    static func multiply(_ a: [Float], _ b: [Float]) -> [Float] {
        var m = [Float](repeating: 0, count: 16)
        for c in 0..<4 {
            for r in 0..<4 {
                var s: Float = 0
                for k in 0..<4 { s += a[4 * k + r] * b[4 * c + k] }
                m[4 * c + r] = s
            }
        }
        return m
    }
}

/// One bufferView's data before it is placed in the buffer.
struct GLBView {
    var bytes: [UInt8]
    /// Elements (vertices, or indices for an index view) and the bytes of each.
    var count: Int
    var stride: Int
    /// 34962 (vertices) or 34963 (indices); 0 for none (an animation's keys).
    var target: Int
    /// Vertex views whose elements are not tightly packed say their stride.
    var declaresStride = true
    /// Unit normals that the meshopt encoding stores with the octahedral filter (8-bit), which
    /// decodes to the same normalised bytes as `bytes` to within one step.
    var unitVectors: [SIMD3<Float>]? = nil
    /// An index view's indices (for the triangle codec) and its mesh's vertex count.
    var triangles: [UInt32]? = nil
    var vertexCount = 0
}

/// A mesh's feature ids as `EXT_mesh_features` stores them: unsigned shorts (in a 4-byte stride, as
/// vertex attributes must be aligned) when every id fits below 65535, else floats (exact to 2²⁴).
/// `TriangleMesh.noFeature` becomes the null id, the largest value of the type.
struct FeatureIDs {
    let componentType: Int
    let null: Int
    /// Distinct ids other than the null one (at least 1, as the extension requires).
    let count: Int
    let bytes: [UInt8]

    init(_ ids: [UInt32]) {
        let largest = ids.lazy.filter { $0 != TriangleMesh.noFeature }.max() ?? 0
        let short = largest < 65535
        componentType = short ? 5123 : 5126
        null = short ? 65535 : (1 << 24) - 1
        count = max(1, Set(ids.lazy.filter { $0 != TriangleMesh.noFeature }).count)
        let null = UInt32(self.null)
        bytes = makeBytes(count: ids.count * 4) { out in
            for id in ids {
                let value = id == TriangleMesh.noFeature || id >= null ? null : id
                if short { out.u16(UInt16(value)); out.u16(0) } else { out.u32(Float(value).bitPattern) }
            }
        }
    }
}

/// The grid quantised positions lie on: the mesh's box, split into 2^bits - 1 equal steps along its
/// longest side (one step for all axes, so the dequantising scale is uniform and normals keep
/// their directions).
struct PositionGrid {
    let origin: SIMD3<Float>
    let step: Float
    let top: Float

    init(lo: SIMD3<Float>, hi: SIMD3<Float>, bits: Int) {
        top = Float((1 << bits) - 1)
        let extent = (hi - lo).max()
        origin = lo
        step = extent > 0 ? extent / top : 1
    }

    @inline(__always) func quantize(_ p: SIMD3<Float>) -> SIMD3<UInt16> {
        let q = ((p - origin) / step).rounded(.toNearestOrAwayFromZero)
            .clamped(lowerBound: .zero, upperBound: SIMD3(repeating: top))
        return SIMD3<UInt16>(q)
    }

    /// Column-major: scale by the step, then move to the origin.
    var matrix: [Float] { [step, 0, 0, 0, 0, step, 0, 0, 0, 0, step, 0, origin.x, origin.y, origin.z, 1] }
}
