import TextOutput

/// Binary little-endian PLY, for MeshLab, CloudCompare and point/mesh tools: coloured vertices and faces.
///
/// Vertices are `float x y z nx ny nz` and `uchar red green blue alpha`; faces a `uchar` count with
/// `uint` indices. Every node's mesh is baked (positions through the transform, normals through its
/// inverse transpose, corners swapped under a mirroring transform). Colours are sRGB-encoded bytes
/// (PLY tools show them as they are): the vertex colours, or else the part's material colour; where a
/// mesh's parts disagree, each part gets its own copy of its vertices so every face shows its colour.
public enum PLYWriter {
    public static func write(_ scene: TriangleScene) -> [UInt8] {
        let prepared = PreparedScene(scene)
        let layouts = prepared.meshes.map { ColoredLayout($0, materials: prepared.materials) }
        var vertices = 0, faces = 0
        for node in prepared.nodes {
            vertices += layouts[node.mesh].vertexCount
            faces += prepared.meshes[node.mesh].drawnTriangleCount
        }
        var h = TextBuffer(capacity: 512)
        h.text("ply\nformat binary_little_endian 1.0\ncomment ProteinAR ")
        h.text(tokenName(prepared.name, fallback: "scene"))
        h.text("\nelement vertex "); h.int(vertices)
        h.text("\nproperty float x\nproperty float y\nproperty float z")
        h.text("\nproperty float nx\nproperty float ny\nproperty float nz")
        h.text("\nproperty uchar red\nproperty uchar green\nproperty uchar blue\nproperty uchar alpha")
        h.text("\nelement face "); h.int(faces)
        h.text("\nproperty list uchar uint vertex_indices\nend_header\n")
        let header = h.finish()

        // sRGB bytes per layout vertex, computed once per mesh rather than once per instance.
        let colorBytes: [[UInt32]] = layouts.map { layout in
            layout.colors.map { c in
                let s = SRGB.encode(c)
                return UInt32(unorm8(s.x)) | UInt32(unorm8(s.y)) << 8 | UInt32(unorm8(s.z)) << 16 | UInt32(unorm8(s.w)) << 24
            }
        }
        return makeBytes(count: header.count + vertices * 28 + faces * 13) { out in
            out.bytes(header)
            for node in prepared.nodes {
                let mesh = prepared.meshes[node.mesh]
                let layout = layouts[node.mesh]
                let colors = colorBytes[node.mesh]
                let a = node.affine
                for k in 0..<layout.vertexCount {
                    let i = layout.sourceVertex.map { Int($0[k]) } ?? k
                    if a.isIdentity {
                        out.vec3(mesh.positions[i]); out.vec3(mesh.normals[i])
                    } else {
                        out.vec3(a.point(mesh.positions[i])); out.vec3(a.normal(mesh.normals[i]))
                    }
                    out.u32(colors[k])
                }
            }
            var base: UInt32 = 0
            for node in prepared.nodes {
                let mesh = prepared.meshes[node.mesh]
                let layout = layouts[node.mesh]
                let indices = layout.indices ?? mesh.indices
                let mirrors = node.affine.mirrors
                for range in layout.triangleRanges {
                    for t in range {
                        out.u8(3)
                        out.u32(indices[3 * t] + base)
                        if mirrors {
                            out.u32(indices[3 * t + 2] + base); out.u32(indices[3 * t + 1] + base)
                        } else {
                            out.u32(indices[3 * t + 1] + base); out.u32(indices[3 * t + 2] + base)
                        }
                    }
                }
                base += UInt32(layout.vertexCount)
            }
        }
    }
}
