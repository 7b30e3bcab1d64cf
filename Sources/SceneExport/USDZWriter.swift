import TextOutput
/// Writes a `TriangleScene` as a USDZ package for AR Quick Look (and any USD reader): a zip with
/// no compression whose one file, `scene.usda`, is the root layer, in USD's text format (accepted
/// by Pixar's ARKit compliance rules since OpenUSD 24.x dropped the "root layer must be usdc" rule,
/// and by AR Quick Look, which opens the usda-rooted packages three.js and model-viewer generate).
///
/// The scene is first reduced as `PreparedScene` does for every writer: meshes with an index past
/// their vertices, nodes with a bad transform or mesh reference, and triangles outside every part
/// are left out; normals are repaired, non-finite coordinates become 0, colours are clamped.
///
/// What the layer holds, and why:
/// - Stage metadata `defaultPrim`, `metersPerUnit = 1`, `upAxis = "Y"`; one root `Xform` (kind
///   `component`) holding everything, so the asset can also be referenced by its default prim.
/// - One `Mesh` per mesh: points, unit normals (`interpolation = "vertex"`), all-3
///   `faceVertexCounts`, `faceVertexIndices` (the parts' triangles, part after part), `extent`,
///   `subdivisionScheme = "none"`, `doubleSided = 0`.
/// - Materials are `UsdPreviewSurface` shaders only (diffuseColor, metallic, roughness, and opacity
///   when alpha < 1) under `<root>/Materials`. Each mesh's faces are split into `GeomSubset`s
///   (`familyName = "materialBind"`, `elementType = "face"`, the family a partition), each bound
///   with `material:binding` and `MaterialBindingAPI` applied. The mesh itself is also bound, to the
///   material of most faces, for readers that ignore subsets; a mesh with a single material has no
///   subsets.
/// - Vertex colours: AR Quick Look ignores `displayColor`, so a mesh with per-vertex colours has
///   its face colours (the average of the three corners) quantised into a palette of at most
///   `Options.maxPaletteColors` entries (see `ColorPalette`), and each (part, palette entry) pair is
///   drawn with a generated material: the entry's RGB (vertex colours replace the material's RGB),
///   the part material's alpha times the entry's, its metallic and roughness. No texture is written:
///   a palette texture would need a PNG, hence deflate, and UVs.
/// - Instancing: a mesh placed by one node is written inside that node's `Xform`. A mesh placed by
///   several is written once, in a `class "Prototypes"` prim (abstract: not drawn), and each node is
///   an `Xform` with its transform, `prepend references = </root/Prototypes/mesh>` and
///   `instanceable = true` (USD scene-graph instancing; Pixar's ARKit compliance rules accept it,
///   while they reject `PointInstancer`). Bindings inside a prototype target `<root>/Materials`,
///   which composes through the internal reference. `Options.sharedMeshes` can drop the
///   `instanceable` flag or copy the mesh into every node instead.
/// - Names are made valid USD identifiers (ASCII) and unique among siblings.
/// - Numbers: point coordinates are rounded to places that keep every coordinate within 1e-5 of the
///   mesh's largest coordinate magnitude, normals to 4 places, transforms and materials exactly.
///
/// The output depends only on the scene and the options: no dates, no randomness.
public enum USDZWriter {
    /// How a mesh placed by several nodes is written.
    public enum SharedMeshes: Sendable, Equatable {
        /// Once, as a prototype that each node references and marks `instanceable` (USD
        /// scene-graph instancing: readers share the geometry). The default.
        case instanced
        /// Once, as a prototype that each node references, not marked instanceable (readers
        /// expand a copy per node; the file still holds one).
        case referenced
        /// Copied into every node: no composition arcs at all, for readers that lack them.
        case copied
    }

    public struct Options: Sendable, Equatable {
        public var sharedMeshes: SharedMeshes
        /// Most colours a vertex-coloured mesh's palette may have (each becomes a material).
        public var maxPaletteColors: Int

        public init(sharedMeshes: SharedMeshes = .instanced, maxPaletteColors: Int = 256) {
            self.sharedMeshes = sharedMeshes
            self.maxPaletteColors = maxPaletteColors
        }
    }

    /// Name of the root layer inside the package.
    public static let rootLayerName = "scene.usda"

    /// The USDZ package's bytes.
    public static func write(_ scene: TriangleScene) -> [UInt8] {
        write(scene, options: Options())
    }

    public static func write(_ scene: TriangleScene, options: Options) -> [UInt8] {
        // The layer is written after room for the zip header, so the archive wraps it uncopied.
        var encoder = USDSceneEncoder(scene: scene, options: options,
                                      leadingSpace: StoredZipArchive.headerSpace(forName: rootLayerName))
        var archive = StoredZipArchive(singleFile: encoder.encode(), name: rootLayerName)
        return archive.finish()
    }

    /// The root layer alone, as USDA text (what the package holds as `scene.usda`).
    public static func usda(_ scene: TriangleScene, options: Options = Options()) -> [UInt8] {
        var encoder = USDSceneEncoder(scene: scene, options: options)
        return encoder.encode()
    }
}

/// The materials a layer needs: the prepared scene's materials as used, and copies of them
/// coloured by palette entries.
struct USDMaterialTable {
    struct Entry {
        var name: String
        var color: SIMD3<Float>
        var opacity: Float
        var metallic: Float
        var roughness: Float
    }

    private struct TintKey: Hashable {
        var material: Int
        var bits: SIMD4<UInt32>
    }

    let materials: [ResolvedMaterial]
    private(set) var entries: [Entry] = []
    private var names = USDNameScope()
    private var entryOfMaterial: [Int: Int] = [:]
    private var entryOfTint: [TintKey: Int] = [:]

    init(materials: [ResolvedMaterial]) { self.materials = materials }

    /// The entry for prepared material `index`.
    mutating func base(_ index: Int) -> Int {
        if let e = entryOfMaterial[index] { return e }
        let m = materials[index]
        let e = add(name: m.name, color: m.baseColor, metallic: m.metallic, roughness: m.roughness)
        entryOfMaterial[index] = e
        return e
    }

    /// The entry for prepared material `index` with a vertex colour `tint` multiplied in (a
    /// vertex-coloured mesh's materials have a white base, so the RGB is the tint's, and the
    /// alphas multiply).
    mutating func tinted(_ index: Int, _ tint: SIMD4<Float>) -> Int {
        if tint == SIMD4<Float>(1, 1, 1, 1) { return base(index) }
        let key = TintKey(material: index, bits: SIMD4(tint.x.bitPattern, tint.y.bitPattern,
                                                       tint.z.bitPattern, tint.w.bitPattern))
        if let e = entryOfTint[key] { return e }
        let m = materials[index]
        let name = USDNameScope.identifier(m.name, fallback: "material") + "_c" + String(entryOfTint.count)
        let e = add(name: name, color: m.baseColor * tint, metallic: m.metallic, roughness: m.roughness)
        entryOfTint[key] = e
        return e
    }

    private mutating func add(name: String, color: SIMD4<Float>, metallic: Float, roughness: Float) -> Int {
        let c = ColorPalette.clamped(color)
        let mr = ColorPalette.clamped(SIMD4(metallic, roughness, 0, 0))
        entries.append(Entry(name: names.unique(name, fallback: "material"), color: SIMD3(c.x, c.y, c.z),
                             opacity: c.w, metallic: mr.x, roughness: mr.y))
        return entries.count - 1
    }
}

/// A prepared mesh's faces as the USD mesh holds them: the triangles of its parts, part after part
/// (triangles outside every part are not drawn, so not written), grouped by the material entry
/// they are drawn with.
struct USDFaceGroups {
    /// The mesh's triangles, in USD face order.
    var triangles: [Range<Int>]
    var faceCount: Int
    /// Material table entry of each group, in order of first face.
    var materials: [Int] = []
    /// USD faces of group g: `faces[offsets[g]..<offsets[g + 1]]`, ascending.
    var offsets: [Int] = []
    var faces: [Int32] = []

    init(mesh: PreparedMesh, maxPaletteColors: Int, table: inout USDMaterialTable) {
        triangles = mesh.parts.map(\.triangles)
        faceCount = triangles.reduce(0) { $0 + $1.count }
        let palette: ColorPalette? = mesh.colors.isEmpty ? nil
            : ColorPalette(colors: mesh.colors, indices: mesh.indices, triangles: triangles,
                           maxColors: maxPaletteColors)
        let entryCount = palette?.colors.count ?? 1

        // Group of each (part, palette entry) pair, found on first use; pairs drawn with the
        // same material entry share a group.
        var groupOfPair = [Int32](repeating: -1, count: mesh.parts.count * entryCount)
        var groupOfMaterial: [Int: Int32] = [:]
        var faceGroup = [Int32](repeating: 0, count: faceCount)
        var counts: [Int] = []
        var f = 0
        for (p, part) in mesh.parts.enumerated() {
            for _ in part.triangles {
                let entry = palette.map { Int($0.faceEntries[f]) } ?? 0
                let pair = p * entryCount + entry
                var g = groupOfPair[pair]
                if g < 0 {
                    let m = palette.map { table.tinted(part.material, $0.colors[entry]) } ?? table.base(part.material)
                    if let existing = groupOfMaterial[m] {
                        g = existing
                    } else {
                        g = Int32(materials.count)
                        groupOfMaterial[m] = g
                        materials.append(m)
                        counts.append(0)
                    }
                    groupOfPair[pair] = g
                }
                faceGroup[f] = g
                counts[Int(g)] += 1
                f += 1
            }
        }
        offsets = [0]
        for c in counts { offsets.append(offsets[offsets.count - 1] + c) }
        var next = offsets
        faces = [Int32](repeating: 0, count: faceCount)
        for f in 0..<faceCount {
            let g = Int(faceGroup[f])
            faces[next[g]] = Int32(f)
            next[g] += 1
        }
    }
}

/// Writes the USDA root layer.
struct USDSceneEncoder {
    let scene: PreparedScene
    let options: USDZWriter.Options
    var out: TextBuffer
    var table: USDMaterialTable
    let rootName: String

    /// Three decimals turn a unit normal by at most about 0.05°.
    static let normalFormat = TextBuffer.USDAFixed(decimals: 3)

    /// `leadingSpace` zero bytes come before the layer's text in `encode()`'s result.
    init(scene source: TriangleScene, options: USDZWriter.Options, leadingSpace: Int = 0) {
        scene = PreparedScene(source)
        self.options = options
        table = USDMaterialTable(materials: scene.materials)
        rootName = USDNameScope.identifier(scene.name, fallback: "scene")
        var estimate = 4096 + 256 * scene.nodes.count
        for mesh in scene.meshes { estimate += mesh.vertexCount * 64 + mesh.drawnTriangleCount * 32 }
        out = TextBuffer(capacity: leadingSpace + estimate)
        out.repeated(0, leadingSpace)
    }

    private var materialsPath: [String] { [rootName, "Materials"] }

    mutating func encode() -> [UInt8] {
        out.text("#usda 1.0\n(\n    defaultPrim = ")
        out.quoted(rootName)
        out.text("\n    doc = \"ProteinAR SceneExport\"\n    metersPerUnit = 1\n    upAxis = \"Y\"\n)\n\n")
        out.text("def Xform ")
        out.quoted(rootName)
        out.text(" (\n    kind = \"component\"\n)\n{\n")

        var uses = [Int](repeating: 0, count: scene.meshes.count)
        for node in scene.nodes { uses[node.mesh] += 1 }

        var children = USDNameScope(reserved: ["Materials", "Prototypes"])
        var prototypeNames = [String?](repeating: nil, count: scene.meshes.count)
        var firstChild = true
        if options.sharedMeshes != .copied && uses.contains(where: { $0 > 1 }) {
            firstChild = false
            var protoScope = USDNameScope()
            out.line(1, "class \"Prototypes\"")
            out.line(1, "{")
            var first = true
            for (m, mesh) in scene.meshes.enumerated() where uses[m] > 1 {
                let name = protoScope.unique(mesh.name, fallback: "mesh")
                prototypeNames[m] = name
                if !first { out.newline() }
                first = false
                out.indent(2)
                out.text("def Xform ")
                out.quoted(name)
                out.newline()
                out.line(2, "{")
                writeMesh(mesh, level: 3)
                out.line(2, "}")
            }
            out.line(1, "}")
        }

        for node in scene.nodes {
            let name = children.unique(node.name, fallback: "node")
            if !firstChild { out.newline() }
            firstChild = false
            out.indent(1)
            out.text("def Xform ")
            out.quoted(name)
            if let proto = prototypeNames[node.mesh] {
                out.text(" (\n")
                if options.sharedMeshes == .instanced { out.line(2, "instanceable = true") }
                out.indent(2)
                out.text("prepend references = ")
                out.path([rootName, "Prototypes", proto])
                out.newline()
                out.line(1, ")")
            } else {
                out.newline()
            }
            out.line(1, "{")
            writeTransform(node.transform, level: 2)
            if prototypeNames[node.mesh] == nil {
                writeMesh(scene.meshes[node.mesh], level: 2)
            }
            out.line(1, "}")
        }

        writeMaterials(firstChild: firstChild)
        out.text("}\n")
        return out.finish()
    }

    private mutating func writeTransform(_ m: [Float], level: Int) {
        guard m != Node.identity else { return }
        // Our column-major array, read four at a time, gives USD's rows (USD multiplies row
        // vectors on the left, so its matrix is the transpose of the column-vector one).
        out.indent(level)
        out.text("matrix4d xformOp:transform = ( ")
        for r in 0..<4 {
            if r > 0 { out.text(", ") }
            out.byte(0x28)
            for c in 0..<4 {
                if c > 0 { out.text(", ") }
                out.shortest(m[4 * r + c])
            }
            out.byte(0x29)
        }
        out.text(" )\n")
        out.line(level, "uniform token[] xformOpOrder = [\"xformOp:transform\"]")
    }

    private mutating func writeMesh(_ mesh: PreparedMesh, level: Int) {
        let groups = USDFaceGroups(mesh: mesh, maxPaletteColors: options.maxPaletteColors, table: &table)
        let meshName = USDNameScope.identifier(mesh.name, fallback: "mesh")

        // Extent, and the number format for the points (positions are finite here).
        var lo = SIMD3<Float>(repeating: .infinity), hi = SIMD3<Float>(repeating: -.infinity)
        for p in mesh.positions {
            lo = pointwiseMin(lo, p)
            hi = pointwiseMax(hi, p)
        }
        let magnitude = Double(pointwiseMax(-lo, hi).max())   // largest |coordinate|
        // Steps of at most 2·10⁻⁵ of the largest coordinate (0.001 Å for a 100 Å protein) are far below
        // what a screen shows, and each dropped digit shortens the file the phone downloads.
        let pointFormat = TextBuffer.USDAFixed(magnitude: magnitude > 0 ? magnitude : 1, relative: 2e-5)

        out.beginBoundPrim("Mesh", meshName, level: level)
        let inner = level + 1
        out.line(inner, "uniform bool doubleSided = 0")

        // Rounding is monotonic, so the extent written with the points' format holds them all.
        out.indent(inner)
        out.text("float3[] extent = [")
        out.tuple3(lo, pointFormat)
        out.text(", ")
        out.tuple3(hi, pointFormat)
        out.text("]\n")

        out.indent(inner)
        out.text("int[] faceVertexCounts = [")
        out.threes(groups.faceCount)
        out.text("]\n")

        out.indent(inner)
        out.text("int[] faceVertexIndices = [")
        var firstRange = true
        for range in groups.triangles where !range.isEmpty {
            if !firstRange { out.byte(0x2C) }
            firstRange = false
            out.indices(mesh.indices[(3 * range.lowerBound)..<(3 * range.upperBound)])
        }
        out.text("]\n")

        // Fallback binding for readers that ignore subsets: the material of the most faces.
        var main = 0
        for g in 0..<groups.materials.count
        where groups.offsets[g + 1] - groups.offsets[g] > groups.offsets[main + 1] - groups.offsets[main] {
            main = g
        }
        writeBinding(groups.materials[main], level: inner)

        out.indent(inner)
        out.text("normal3f[] normals = [")
        out.tuples(mesh.normals, Self.normalFormat)
        out.text("] (\n")
        out.line(inner + 1, "interpolation = \"vertex\"")
        out.line(inner, ")")

        out.line(inner, "uniform token orientation = \"rightHanded\"")

        out.indent(inner)
        out.text("point3f[] points = [")
        out.tuples(mesh.positions, pointFormat)
        out.text("]\n")
        out.line(inner, "uniform token subdivisionScheme = \"none\"")

        if groups.materials.count > 1 {
            out.line(inner, "uniform token subsetFamily:materialBind:familyType = \"partition\"")
            var subsetNames = USDNameScope()
            for g in 0..<groups.materials.count {
                let material = groups.materials[g]
                let name = subsetNames.unique(table.entries[material].name, fallback: "subset")
                out.newline()
                out.beginBoundPrim("GeomSubset", name, level: inner)
                out.line(inner + 1, "uniform token elementType = \"face\"")
                out.line(inner + 1, "uniform token familyName = \"materialBind\"")
                out.indent(inner + 1)
                out.text("int[] indices = [")
                out.integers(groups.faces[groups.offsets[g]..<groups.offsets[g + 1]])
                out.text("]\n")
                writeBinding(material, level: inner + 1)
                out.line(inner, "}")
            }
        }
        out.line(level, "}")
    }

    private mutating func writeBinding(_ material: Int, level: Int) {
        out.indent(level)
        out.text("rel material:binding = ")
        out.path(materialsPath + [table.entries[material].name])
        out.newline()
    }

    private mutating func writeMaterials(firstChild: Bool) {
        guard !table.entries.isEmpty else { return }
        if !firstChild { out.newline() }
        out.line(1, "def Scope \"Materials\"")
        out.line(1, "{")
        for (i, m) in table.entries.enumerated() {
            if i > 0 { out.newline() }
            out.indent(2)
            out.text("def Material ")
            out.quoted(m.name)
            out.newline()
            out.line(2, "{")
            out.indent(3)
            out.text("token outputs:surface.connect = ")
            out.path(materialsPath + [m.name, "PreviewSurface"], property: "outputs:surface")
            out.newline()
            out.line(3, "def Shader \"PreviewSurface\"")
            out.line(3, "{")
            out.line(4, "uniform token info:id = \"UsdPreviewSurface\"")
            out.indent(4)
            out.text("color3f inputs:diffuseColor = ")
            out.tuple3(m.color)
            out.newline()
            out.floatInput("metallic", m.metallic, level: 4)
            if m.opacity < 1 { out.floatInput("opacity", m.opacity, level: 4) }
            out.floatInput("roughness", m.roughness, level: 4)
            out.line(4, "token outputs:surface")
            out.line(3, "}")
            out.line(2, "}")
        }
        out.line(1, "}")
    }
}
