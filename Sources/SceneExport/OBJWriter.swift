import TextOutput

/// Wavefront OBJ with its MTL material library, for 3D tools that read nothing newer.
///
/// OBJ has no instancing, so every node's mesh is baked: positions go through the node's transform,
/// normals through its inverse transpose (renormalised), and a mirroring transform swaps corners to
/// keep the winding. Each instance is an `o` object and a `g` group of the node's name, then `v` and
/// `vn` lines (one `vn` per `v`, so faces are `f a//a b//b c//c`) and one `usemtl` per part.
///
/// Colours: glTF-style colours in the scene are linear, but MTL `Kd` (and the colours tools read after
/// `v x y z`) are conventionally display values, so both are converted linear → sRGB here. With
/// `vertexColors` (the default) and any vertex-coloured mesh in the scene, every `v` line carries
/// `r g b` (the common extension that Blender, MeshLab, assimp and trimesh read): the vertex colours,
/// or for meshes without them their parts' material colours; the parts of vertex-coloured meshes then
/// use a white variant of their material. `d` is the material's alpha; `Pr`/`Pm` are the PBR extension's
/// roughness and metallic, and `Ns` follows roughness as (1 − roughness)² · 1000.
public enum OBJWriter {
    /// - Parameters:
    ///   - mtlFileName: the name `mtllib` refers to, as the MTL file will be saved beside the OBJ
    ///     (one token: keep it free of whitespace).
    ///   - vertexColors: write `v x y z r g b` when some mesh has vertex colours.
    public static func write(_ scene: TriangleScene, mtlFileName: String,
                             vertexColors: Bool = true) -> (obj: [UInt8], mtl: [UInt8]) {
        let prepared = PreparedScene(scene, useVertexColors: vertexColors)
        let withColors = prepared.meshes.contains { !$0.colors.isEmpty }
        let materialNames = uniqueNames(prepared.materials.map { tokenName($0.name, fallback: "material") })

        var mtl = TextBuffer(capacity: 256 + prepared.materials.count * 200)
        mtl.text("# ProteinAR MTL: colours are sRGB-encoded (the scene's are linear)\n")
        for (k, mat) in prepared.materials.enumerated() {
            let c = SRGB.encode(mat.baseColor)
            let specular = SRGB.encode(SIMD4(repeating: 0.04) * (1 - mat.metallic) + mat.baseColor * mat.metallic)
            let shine = (1 - mat.roughness) * (1 - mat.roughness) * 1000
            mtl.text("\nnewmtl "); mtl.text(materialNames[k])
            mtl.text("\nKa 0 0 0\nKd "); rgb(c, &mtl)
            mtl.text("\nKs "); rgb(specular, &mtl)
            mtl.text("\nNs "); mtl.significant(shine, digits: 4)
            mtl.text("\nd "); mtl.significant(c.w, digits: 4)
            mtl.text("\nPr "); mtl.significant(mat.roughness, digits: 4)
            mtl.text("\nPm "); mtl.significant(mat.metallic, digits: 4)
            mtl.text("\nillum 2\n")
        }

        let layouts: [ColoredLayout?] = prepared.meshes.map { withColors ? ColoredLayout($0, materials: prepared.materials) : nil }
        // sRGB colours per layout vertex, once per mesh rather than once per instance.
        let displayColors: [[SIMD4<Float>]] = layouts.map { $0?.colors.map(SRGB.encode) ?? [] }
        var estimate = 256
        for node in prepared.nodes {
            let mesh = prepared.meshes[node.mesh]
            let v = layouts[node.mesh]?.vertexCount ?? mesh.vertexCount
            estimate += v * (withColors ? 100 : 76) + mesh.drawnTriangleCount * 40 + 64
        }
        var obj = TextBuffer(capacity: estimate)
        obj.text("# ProteinAR OBJ: "); obj.text(tokenName(prepared.name, fallback: "scene"))
        obj.text("\nmtllib "); obj.text(mtlFileName); obj.byte(10)

        var base = 1  // OBJ indices are 1-based and global
        var world: [SIMD3<Float>] = []
        for node in prepared.nodes {
            let mesh = prepared.meshes[node.mesh]
            let layout = layouts[node.mesh]
            let name = tokenName(node.name, fallback: "node")
            obj.text("o "); obj.text(name); obj.text("\ng "); obj.text(name); obj.byte(10)
            let a = node.affine
            let count = layout?.vertexCount ?? mesh.vertexCount
            world.removeAll(keepingCapacity: true)
            var magnitude: Float = 0
            for i in 0..<mesh.vertexCount {
                let p = a.isIdentity ? mesh.positions[i] : a.point(mesh.positions[i])
                magnitude = max(magnitude, abs(p.x), abs(p.y), abs(p.z))
                world.append(p)
            }
            let pointFormat = DecimalFormat(magnitude: magnitude)
            let source = layout?.sourceVertex
            let colors = displayColors[node.mesh]
            for k in 0..<count {
                let i = source.map { Int($0[k]) } ?? k
                obj.text("v "); xyz(world[i], pointFormat, &obj)
                if !colors.isEmpty {
                    obj.byte(32); rgb(colors[k], &obj)
                }
                obj.byte(10)
            }
            for k in 0..<count {
                let i = source.map { Int($0[k]) } ?? k
                let n = a.isIdentity ? mesh.normals[i] : a.normal(mesh.normals[i])
                obj.text("vn "); xyz(n, Self.normalFormat, &obj); obj.byte(10)
            }
            let indices = layout?.indices ?? mesh.indices
            let ranges = layout?.triangleRanges ?? mesh.parts.map(\.triangles)
            for (part, range) in zip(mesh.parts, ranges) {
                obj.text("usemtl "); obj.text(materialNames[part.material]); obj.byte(10)
                for t in range {
                    let i0 = Int(indices[3 * t]) + base
                    var i1 = Int(indices[3 * t + 1]) + base, i2 = Int(indices[3 * t + 2]) + base
                    if a.mirrors { swap(&i1, &i2) }
                    obj.text("f "); corner(i0, &obj); obj.byte(32); corner(i1, &obj); obj.byte(32); corner(i2, &obj)
                    obj.byte(10)
                }
            }
            base += count
        }
        return (obj.finish(), mtl.finish())
    }

    private static let normalFormat = DecimalFormat(decimals: 5)
    private static let colorFormat = DecimalFormat(decimals: 4)

    @inline(__always) private static func xyz(_ p: SIMD3<Float>, _ format: DecimalFormat, _ out: inout TextBuffer) {
        out.numbers(p, format)
    }

    @inline(__always) private static func rgb(_ c: SIMD4<Float>, _ out: inout TextBuffer) {
        xyz(SIMD3(c.x, c.y, c.z), colorFormat, &out)
    }

    @inline(__always) private static func corner(_ i: Int, _ out: inout TextBuffer) {
        out.withSpace(44) { cursor in
            cursor.unsigned(UInt64(i.magnitude), negative: i < 0); cursor.put(47); cursor.put(47)
            cursor.unsigned(UInt64(i.magnitude), negative: i < 0)
        }
    }
}
