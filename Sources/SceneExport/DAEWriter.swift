import TextOutput

/// COLLADA 1.4.1 (.dae), for SceneKit, older DCC tools and anything that reads assimp's formats.
///
/// `asset` says metres (`unit meter="1"`) and `Y_UP`. Each drawn mesh is one `geometry`, written once
/// and placed by every node that uses it through `instance_geometry` (instancing), with positions,
/// normals and, for vertex-coloured meshes, RGBA colours as `float_array` sources, and one `triangles`
/// element per part whose material symbol `bind_material` maps to the material. Node transforms are
/// written as `<matrix>`, which COLLADA stores row-major (the scene's are column-major). Materials are
/// Lambert effects with the diffuse colour, plus `transparent`/`transparency` (A_ONE) when alpha is
/// below 1; parts of vertex-coloured meshes use a white variant of their material, since the vertex
/// colours replace its colour. Colours are sRGB-encoded (COLLADA tools treat colours as display
/// values; the scene's are linear). The schema types `name` attributes as xs:NCName, so names are
/// made into one (ASCII characters other than letters, digits, `-`, `_` and `.` become `_`, and a
/// leading digit, `-` or `.` gets a `_` before it) and then XML-escaped; ids are generated. A scene
/// with nothing to draw still gets the one empty `node` a `visual_scene` must have.
public enum DAEWriter {
    /// - Parameter date: the `created`/`modified` time COLLADA requires (xs:dateTime); fixed by
    ///   default so the same scene always gives the same bytes.
    public static func write(_ scene: TriangleScene, date: String = "2000-01-01T00:00:00Z") -> [UInt8] {
        let prepared = PreparedScene(scene)
        var estimate = 4096 + prepared.nodes.count * 600 + prepared.materials.count * 600
        for mesh in prepared.meshes {
            estimate += mesh.vertexCount * (mesh.colors.isEmpty ? 60 : 90) + mesh.indices.count * 7 + 1024
        }
        var x = TextBuffer(capacity: estimate)
        x.text("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n")
        x.text("<COLLADA xmlns=\"http://www.collada.org/2005/11/COLLADASchema\" version=\"1.4.1\">\n")
        x.text("  <asset>\n    <contributor><authoring_tool>ProteinAR</authoring_tool></contributor>\n")
        x.text("    <created>"); x.xml(date); x.text("</created>\n    <modified>"); x.xml(date); x.text("</modified>\n")
        x.text("    <unit name=\"meter\" meter=\"1\"/>\n    <up_axis>Y_UP</up_axis>\n  </asset>\n")

        if !prepared.materials.isEmpty {
            x.text("  <library_effects>\n")
            for (k, mat) in prepared.materials.enumerated() {
                let c = SRGB.encode(mat.baseColor)
                x.text("    <effect id=\"effect-"); x.int(k); x.text("\" name=\""); x.xml(ncName(mat.name))
                x.text("\">\n      <profile_COMMON>\n        <technique sid=\"common\">\n          <lambert>\n")
                x.text("            <diffuse><color sid=\"diffuse\">"); color(c, &x); x.text("</color></diffuse>\n")
                if c.w < 1 {
                    x.text("            <transparent opaque=\"A_ONE\"><color>1 1 1 "); x.significant(c.w, digits: 4)
                    x.text("</color></transparent>\n")
                    x.text("            <transparency><float sid=\"transparency\">1</float></transparency>\n")
                }
                x.text("          </lambert>\n        </technique>\n      </profile_COMMON>\n    </effect>\n")
            }
            x.text("  </library_effects>\n  <library_materials>\n")
            for (k, mat) in prepared.materials.enumerated() {
                x.text("    <material id=\"material-"); x.int(k); x.text("\" name=\""); x.xml(ncName(mat.name))
                x.text("\"><instance_effect url=\"#effect-"); x.int(k); x.text("\"/></material>\n")
            }
            x.text("  </library_materials>\n")
        }

        if !prepared.meshes.isEmpty {
            x.text("  <library_geometries>\n")
            for (m, mesh) in prepared.meshes.enumerated() {
                let id = "geometry-\(m)"
                let n = mesh.vertexCount
                x.text("    <geometry id=\""); x.text(id); x.text("\" name=\""); x.xml(ncName(mesh.name)); x.text("\">\n      <mesh>\n")
                var magnitude: Float = 0
                for p in mesh.positions { magnitude = max(magnitude, abs(p.x), abs(p.y), abs(p.z)) }
                let pointFormat = DecimalFormat(magnitude: magnitude)
                source(id + "-positions", count: n, params: "XYZ", &x) { out in
                    for p in mesh.positions {
                        out.numbers(p, pointFormat); out.byte(10)
                    }
                }
                source(id + "-normals", count: n, params: "XYZ", &x) { out in
                    for v in mesh.normals {
                        out.numbers(v, normalFormat); out.byte(10)
                    }
                }
                if !mesh.colors.isEmpty {
                    source(id + "-colors", count: n, params: "RGBA", &x) { out in
                        for c in mesh.colors { color(SRGB.encode(c), &out); out.byte(10) }
                    }
                }
                x.text("        <vertices id=\""); x.text(id); x.text("-vertices\"><input semantic=\"POSITION\" source=\"#")
                x.text(id); x.text("-positions\"/></vertices>\n")
                for part in mesh.parts {
                    x.text("        <triangles material=\"m"); x.int(part.material); x.text("\" count=\"")
                    x.int(part.triangles.count); x.text("\">\n")
                    x.text("          <input semantic=\"VERTEX\" source=\"#"); x.text(id); x.text("-vertices\" offset=\"0\"/>\n")
                    x.text("          <input semantic=\"NORMAL\" source=\"#"); x.text(id); x.text("-normals\" offset=\"0\"/>\n")
                    if !mesh.colors.isEmpty {
                        x.text("          <input semantic=\"COLOR\" source=\"#"); x.text(id)
                        x.text("-colors\" offset=\"0\" set=\"0\"/>\n")
                    }
                    x.text("          <p>")
                    for i in (part.triangles.lowerBound * 3)..<(part.triangles.upperBound * 3) {
                        if i > part.triangles.lowerBound * 3 { x.byte(32) }
                        x.int(Int(mesh.indices[i]))
                    }
                    x.text("</p>\n        </triangles>\n")
                }
                x.text("      </mesh>\n    </geometry>\n")
            }
            x.text("  </library_geometries>\n")
        }

        x.text("  <library_visual_scenes>\n    <visual_scene id=\"scene\" name=\""); x.xml(ncName(prepared.name)); x.text("\">\n")
        for (k, node) in prepared.nodes.enumerated() {
            let mesh = prepared.meshes[node.mesh]
            x.text("      <node id=\"node-"); x.int(k); x.text("\" name=\""); x.xml(ncName(node.name)); x.text("\" type=\"NODE\">\n")
            x.text("        <matrix sid=\"transform\">")
            for row in 0..<4 {
                for column in 0..<4 {
                    if row + column > 0 { x.byte(32) }
                    x.significant(node.transform[column * 4 + row], digits: 7)
                }
            }
            x.text("</matrix>\n        <instance_geometry url=\"#geometry-"); x.int(node.mesh)
            x.text("\">\n          <bind_material><technique_common>\n")
            var bound = Set<Int>()
            for part in mesh.parts where bound.insert(part.material).inserted {
                x.text("            <instance_material symbol=\"m"); x.int(part.material)
                x.text("\" target=\"#material-"); x.int(part.material); x.text("\"/>\n")
            }
            x.text("          </technique_common></bind_material>\n        </instance_geometry>\n      </node>\n")
        }
        if prepared.nodes.isEmpty { x.text("      <node id=\"node-0\" name=\"empty\" type=\"NODE\"/>\n") }
        x.text("    </visual_scene>\n  </library_visual_scenes>\n")
        x.text("  <scene><instance_visual_scene url=\"#scene\"/></scene>\n</COLLADA>\n")
        return x.finish()
    }

    /// `name` as an xs:NCName (non-ASCII characters are kept: most are letters, which NCName allows).
    static func ncName(_ name: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(name.utf8.count + 1)
        for b in name.utf8 {
            switch b {
            case 65...90, 97...122, 48...57, 45, 46, 95, 128...255: out.append(b)
            default: out.append(95)
            }
        }
        if out.isEmpty { return "_" }
        if (48...57).contains(out[0]) || out[0] == 45 || out[0] == 46 { out.insert(95, at: 0) }
        return String(decoding: out, as: UTF8.self)
    }

    private static func source(_ id: String, count: Int, params: StaticString, _ x: inout TextBuffer,
                               _ values: (inout TextBuffer) -> Void) {
        let stride = params.utf8CodeUnitCount
        x.text("        <source id=\""); x.text(id); x.text("\">\n          <float_array id=\""); x.text(id)
        x.text("-array\" count=\""); x.int(count * stride); x.text("\">\n")
        values(&x)
        x.text("          </float_array>\n          <technique_common><accessor source=\"#"); x.text(id)
        x.text("-array\" count=\""); x.int(count); x.text("\" stride=\""); x.int(stride); x.text("\">")
        params.withUTF8Buffer { names in
            for b in names {
                x.text("<param name=\""); x.byte(b); x.text("\" type=\"float\"/>")
            }
        }
        x.text("</accessor></technique_common>\n        </source>\n")
    }

    private static let normalFormat = DecimalFormat(decimals: 5)
    private static let colorFormat = DecimalFormat(decimals: 4)

    private static func color(_ c: SIMD4<Float>, _ x: inout TextBuffer) {
        x.numbers(c, colorFormat)
    }
}
