import TextOutput

/// glTF 2.0 binary (.glb): the format AR viewers on Android and the web load directly.
///
/// Layout: a 12-byte header, a JSON chunk padded with spaces and a BIN chunk padded with zeros, both to
/// 4 bytes; one buffer. Each drawn mesh is stored once, however many nodes place it: per mesh one
/// bufferView each for POSITION (float VEC3 with exact min/max), NORMAL (float VEC3, unit), COLOR_0
/// (normalised unsigned-byte VEC4, linear, only when the mesh has vertex colours) and indices
/// (unsigned short below 65536 vertices, else unsigned int), and one primitive per part, sharing the
/// vertex accessors, with its own index accessor and material. Nodes carry `matrix` unless identity
/// and all belong to the one scene. Materials are metallic-roughness with `doubleSided: false`,
/// `alphaMode: BLEND` when alpha is below 1; a vertex-coloured mesh's parts use a white variant of
/// their material, since glTF multiplies COLOR_0 by the base colour factor. Meshes without triangles,
/// with indices out of range or placed by no valid node are left out; an empty scene gives a valid file
/// with one empty scene and no BIN chunk.
public enum GLBWriter {
    public static func write(_ scene: TriangleScene) -> [UInt8] {
        let prepared = PreparedScene(scene)

        // Lay out the BIN chunk: per mesh its bufferViews, each starting on a 4-byte boundary.
        struct MeshLayout {
            var position = 0, normal = 0, color = -1, index = 0  // bufferView indices
            var wideIndices = false
            var min = SIMD3<Float>(repeating: 0), max = SIMD3<Float>(repeating: 0)
        }
        struct View { var offset: Int; var length: Int; var target: Int }
        var views: [View] = []
        var layouts: [MeshLayout] = []
        var binLength = 0
        func addView(_ length: Int, target: Int) -> Int {
            views.append(View(offset: binLength, length: length, target: target))
            binLength += (length + 3) & ~3
            return views.count - 1
        }
        for mesh in prepared.meshes {
            var l = MeshLayout()
            let n = mesh.vertexCount
            l.position = addView(n * 12, target: 34962)
            l.normal = addView(n * 12, target: 34962)
            if !mesh.colors.isEmpty { l.color = addView(n * 4, target: 34962) }
            l.wideIndices = n > 65535
            l.index = addView((mesh.indices.count / 3) * 3 * (l.wideIndices ? 4 : 2), target: 34963)
            var lo = mesh.positions[0], hi = mesh.positions[0]
            for p in mesh.positions { lo = pointwiseMin(lo, p); hi = pointwiseMax(hi, p) }
            l.min = lo; l.max = hi
            layouts.append(l)
        }

        var j = TextBuffer(capacity: 1024 + prepared.nodes.count * 200 + prepared.meshes.count * 400)
        j.text("{\"asset\":{\"version\":\"2.0\",\"generator\":\"ProteinAR\"},\"scene\":0,\"scenes\":[{\"name\":")
        j.jsonString(prepared.name)
        if !prepared.nodes.isEmpty {
            j.text(",\"nodes\":[")
            for k in prepared.nodes.indices { if k > 0 { j.byte(44) }; j.int(k) }
            j.byte(93)
        }
        j.text("}]")

        if !prepared.nodes.isEmpty {
            j.text(",\"nodes\":[")
            for (k, node) in prepared.nodes.enumerated() {
                if k > 0 { j.byte(44) }
                j.text("{\"name\":"); j.jsonString(node.name)
                j.text(",\"mesh\":"); j.int(node.mesh)
                if !node.affine.isIdentity {
                    j.text(",\"matrix\":[")
                    for (i, v) in node.transform.enumerated() { if i > 0 { j.byte(44) }; j.text(v.description) }
                    j.byte(93)
                }
                j.byte(125)
            }
            j.byte(93)
        }

        var accessorCount = 0
        if !prepared.meshes.isEmpty {
            j.text(",\"meshes\":[")
            for (m, mesh) in prepared.meshes.enumerated() {
                if m > 0 { j.byte(44) }
                j.text("{\"name\":"); j.jsonString(mesh.name); j.text(",\"primitives\":[")
                let position = accessorCount, normal = accessorCount + 1
                let color = layouts[m].color >= 0 ? accessorCount + 2 : -1
                accessorCount += color >= 0 ? 3 : 2
                for (p, part) in mesh.parts.enumerated() {
                    if p > 0 { j.byte(44) }
                    j.text("{\"attributes\":{\"POSITION\":"); j.int(position)
                    j.text(",\"NORMAL\":"); j.int(normal)
                    if color >= 0 { j.text(",\"COLOR_0\":"); j.int(color) }
                    j.text("},\"indices\":"); j.int(accessorCount)
                    accessorCount += 1
                    j.text(",\"material\":"); j.int(part.material); j.byte(125)
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
            // (no nested helper captures `j`: a captured non-copyable value could not be consumed later)
            func exact(_ v: Float) -> String { Double(v).description }  // parses back to the very float
            for (mesh, l) in zip(prepared.meshes, layouts) {
                let n = mesh.vertexCount
                if !first { j.byte(44) }; first = false
                j.text("{\"bufferView\":"); j.int(l.position)
                j.text(",\"componentType\":5126,\"count\":"); j.int(n)
                j.text(",\"type\":\"VEC3\",\"min\":[")
                j.text(exact(l.min.x)); j.byte(44); j.text(exact(l.min.y)); j.byte(44); j.text(exact(l.min.z))
                j.text("],\"max\":[")
                j.text(exact(l.max.x)); j.byte(44); j.text(exact(l.max.y)); j.byte(44); j.text(exact(l.max.z))
                j.text("]}")
                if !first { j.byte(44) }; first = false
                j.text("{\"bufferView\":"); j.int(l.normal)
                j.text(",\"componentType\":5126,\"count\":"); j.int(n); j.text(",\"type\":\"VEC3\"}")
                if l.color >= 0 {
                    if !first { j.byte(44) }; first = false
                    j.text("{\"bufferView\":"); j.int(l.color)
                    j.text(",\"componentType\":5121,\"normalized\":true,\"count\":"); j.int(n); j.text(",\"type\":\"VEC4\"}")
                }
                let size = l.wideIndices ? 4 : 2
                for part in mesh.parts {
                    if !first { j.byte(44) }; first = false
                    j.text("{\"bufferView\":"); j.int(l.index)
                    j.text(",\"byteOffset\":"); j.int(part.triangles.lowerBound * 3 * size)
                    j.text(",\"componentType\":"); j.int(l.wideIndices ? 5125 : 5123)
                    j.text(",\"count\":"); j.int(part.triangles.count * 3); j.text(",\"type\":\"SCALAR\"}")
                }
            }
            j.byte(93)
            j.text(",\"bufferViews\":[")
            for (k, v) in views.enumerated() {
                if k > 0 { j.byte(44) }
                j.text("{\"buffer\":0,\"byteOffset\":"); j.int(v.offset)
                j.text(",\"byteLength\":"); j.int(v.length)
                j.text(",\"target\":"); j.int(v.target); j.byte(125)
            }
            j.text("],\"buffers\":[{\"byteLength\":"); j.int(binLength); j.text("}]")
        }
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
            for (mesh, l) in zip(prepared.meshes, layouts) {
                mesh.positions.withUnsafeBufferPointer { for p in $0 { out.vec3(p) } }
                mesh.normals.withUnsafeBufferPointer { for v in $0 { out.vec3(v) } }
                if l.color >= 0 {
                    mesh.colors.withUnsafeBufferPointer {
                        for c in $0 { out.u32(UInt32(unorm8(c.x)) | UInt32(unorm8(c.y)) << 8 | UInt32(unorm8(c.z)) << 16 | UInt32(unorm8(c.w)) << 24) }
                    }
                }
                let used = (mesh.indices.count / 3) * 3
                mesh.indices.withUnsafeBufferPointer { idx in
                    if l.wideIndices {
                        for k in 0..<used { out.u32(idx[k]) }
                    } else {
                        for k in 0..<used { out.u16(UInt16(truncatingIfNeeded: idx[k])) }
                        if used % 2 == 1 { out.u16(0) }
                    }
                }
            }
        }
    }
}
