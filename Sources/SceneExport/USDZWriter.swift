import TextOutput
/// Writes a `TriangleScene` as a USDZ package for AR Quick Look (and any USD reader): a zip with
/// no compression whose one file is the root layer: `scene.usdc`, USD's binary crate format (what
/// Apple's tools write and ARKit's rules prefer: a third of the text's bytes for large meshes, no
/// number parsing on the phone), or `scene.usda`, the same layer as text, for debugging
/// (`Options.layerFormat`). `USDLayerBuilder` builds the layer once; `USDCrateWriter` and
/// `USDATextWriter` write it.
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

    /// The root layer's format.
    public enum LayerFormat: String, Sendable, Equatable, CaseIterable {
        /// USD's binary crate format, `scene.usdc`: the default.
        case crate
        /// USDA text, `scene.usda`: larger and slower to read, but readable by people.
        case text

        /// Name of the root layer inside the package.
        public var rootLayerName: String { self == .crate ? "scene.usdc" : "scene.usda" }
    }

    public struct Options: Sendable, Equatable {
        public var sharedMeshes: SharedMeshes
        /// Most colours a vertex-coloured mesh's palette may have (each becomes a material).
        public var maxPaletteColors: Int
        public var layerFormat: LayerFormat

        public init(sharedMeshes: SharedMeshes = .instanced, maxPaletteColors: Int = 256,
                    layerFormat: LayerFormat = .crate) {
            self.sharedMeshes = sharedMeshes
            self.maxPaletteColors = maxPaletteColors
            self.layerFormat = layerFormat
        }
    }

    /// Name of the root layer inside a package written with the default options.
    public static let rootLayerName = LayerFormat.crate.rootLayerName

    /// The USDZ package's bytes.
    public static func write(_ scene: TriangleScene) -> [UInt8] {
        write(scene, options: Options())
    }

    public static func write(_ scene: TriangleScene, options: Options) -> [UInt8] {
        var builder = USDLayerBuilder(scene: scene, options: options)
        let layer = builder.build()
        // The layer is written after room for the zip header, so the archive wraps it uncopied.
        // A crate block holds at most 2 GB (LZ4's limit); a scene that large is written as text.
        if options.layerFormat == .crate,
           let crate = try? USDCrateWriter.write(layer, leadingSpace: StoredZipArchive.headerSpace(forName: LayerFormat.crate.rootLayerName)) {
            var archive = StoredZipArchive(singleFile: crate, name: LayerFormat.crate.rootLayerName)
            return archive.finish()
        }
        let text = USDATextWriter.write(layer, leadingSpace: StoredZipArchive.headerSpace(forName: LayerFormat.text.rootLayerName))
        var archive = StoredZipArchive(singleFile: text, name: LayerFormat.text.rootLayerName)
        return archive.finish()
    }

    /// The root layer alone, as USDA text (what a package written with `layerFormat: .text` holds).
    public static func usda(_ scene: TriangleScene, options: Options = Options()) -> [UInt8] {
        var builder = USDLayerBuilder(scene: scene, options: options)
        return USDATextWriter.write(builder.build())
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
