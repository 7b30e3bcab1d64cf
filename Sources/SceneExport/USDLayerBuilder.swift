import TextOutput

/// Builds the `USDLayer` of a scene (what `USDZWriter` documents): the stage metadata, one root
/// `Xform`, prototypes for meshes placed more than once, a prim per node, a `Mesh` per mesh with its
/// `GeomSubset`s, and the `Materials` scope.
///
/// Bulk numbers are put on a decimal grid here, once, so that the text and the crate layers hold
/// the same floats: points keep every coordinate within 2·10⁻⁵ of the mesh's largest coordinate
/// (0.001 Å for a 100 Å protein, far below what a screen shows; each dropped digit shortens the text),
/// normals 3 places (a turn of at most about 0.05°). Transforms and materials stay exact.
struct USDLayerBuilder {
    let scene: PreparedScene
    let options: USDZWriter.Options
    private(set) var table: USDMaterialTable
    let rootName: String

    static let normalDecimals = 3

    init(scene source: TriangleScene, options: USDZWriter.Options) {
        scene = PreparedScene(source)
        self.options = options
        table = USDMaterialTable(materials: scene.materials)
        rootName = USDNameScope.identifier(scene.name, fallback: "scene")
    }

    private var materialsPath: [String] { [rootName, "Materials"] }

    mutating func build() -> USDLayer {
        var root = USDPrim(typeName: "Xform", name: rootName, kind: "component")

        var uses = [Int](repeating: 0, count: scene.meshes.count)
        for node in scene.nodes { uses[node.mesh] += 1 }

        var children = USDNameScope(reserved: ["Materials", "Prototypes"])
        var prototypeNames = [String?](repeating: nil, count: scene.meshes.count)
        if options.sharedMeshes != .copied && uses.contains(where: { $0 > 1 }) {
            var prototypes = USDPrim(specifier: .class, typeName: nil, name: "Prototypes")
            var protoScope = USDNameScope()
            for (m, mesh) in scene.meshes.enumerated() where uses[m] > 1 {
                let name = protoScope.unique(mesh.name, fallback: "mesh")
                prototypeNames[m] = name
                var holder = USDPrim(typeName: "Xform", name: name)
                holder.children = [meshPrim(mesh)]
                prototypes.children.append(holder)
            }
            root.children.append(prototypes)
        }

        for node in scene.nodes {
            let name = children.unique(node.name, fallback: "node")
            var prim = USDPrim(typeName: "Xform", name: name)
            if let proto = prototypeNames[node.mesh] {
                prim.instanceable = options.sharedMeshes == .instanced
                prim.references = [USDPath(prim: [rootName, "Prototypes", proto])]
            }
            if node.transform != Node.identity {
                // Our column-major array, read four at a time, gives USD's rows (USD multiplies row
                // vectors on the left, so its matrix is the transpose of the column-vector one).
                prim.properties.append(.attribute(USDAttribute(name: "xformOp:transform", typeName: "matrix4d",
                                                               value: .matrix4d(node.transform.map(Double.init)))))
                prim.properties.append(.attribute(USDAttribute(name: "xformOpOrder", typeName: "token[]", uniform: true,
                                                               value: .tokenArray(["xformOp:transform"]))))
            }
            if prototypeNames[node.mesh] == nil {
                prim.children.append(meshPrim(scene.meshes[node.mesh]))
            }
            root.children.append(prim)
        }

        if !table.entries.isEmpty { root.children.append(materialsScope()) }
        return USDLayer(defaultPrim: rootName, documentation: "ProteinAR SceneExport", metersPerUnit: 1,
                        upAxis: "Y", rootPrims: [root])
    }

    private mutating func meshPrim(_ mesh: PreparedMesh) -> USDPrim {
        let groups = USDFaceGroups(mesh: mesh, maxPaletteColors: options.maxPaletteColors, table: &table)
        var prim = USDPrim(typeName: "Mesh", name: USDNameScope.identifier(mesh.name, fallback: "mesh"),
                           apiSchemas: ["MaterialBindingAPI"])

        var lo = SIMD3<Float>(repeating: .infinity), hi = SIMD3<Float>(repeating: -.infinity)
        for p in mesh.positions {
            lo = pointwiseMin(lo, p)
            hi = pointwiseMax(hi, p)
        }
        let magnitude = Double(pointwiseMax(-lo, hi).max())   // largest |coordinate|
        let pointDecimals = Self.decimals(magnitude: magnitude > 0 ? magnitude : 1, relative: 2e-5)
        // Rounding is monotonic, so the rounded extent still holds the rounded points.
        let extent = Self.quantised([lo, hi], decimals: pointDecimals)

        var indices: [Int32] = []
        indices.reserveCapacity(3 * groups.faceCount)
        for range in groups.triangles {
            for i in (3 * range.lowerBound)..<(3 * range.upperBound) { indices.append(Int32(bitPattern: mesh.indices[i])) }
        }

        // Fallback binding for readers that ignore subsets: the material of the most faces.
        var main = 0
        for g in 0..<groups.materials.count
        where groups.offsets[g + 1] - groups.offsets[g] > groups.offsets[main + 1] - groups.offsets[main] {
            main = g
        }

        prim.properties = [
            .attribute(USDAttribute(name: "doubleSided", typeName: "bool", uniform: true, value: .bool(false))),
            .attribute(USDAttribute(name: "extent", typeName: "float3[]", value: .float3Array(extent, decimals: pointDecimals))),
            .attribute(USDAttribute(name: "faceVertexCounts", typeName: "int[]",
                                    value: .intArray([Int32](repeating: 3, count: groups.faceCount)))),
            .attribute(USDAttribute(name: "faceVertexIndices", typeName: "int[]", value: .intArray(indices))),
            binding(groups.materials[main]),
            .attribute(USDAttribute(name: "normals", typeName: "normal3f[]",
                                    value: .float3Array(Self.quantised(mesh.normals, decimals: Self.normalDecimals),
                                                        decimals: Self.normalDecimals),
                                    interpolation: "vertex")),
            .attribute(USDAttribute(name: "orientation", typeName: "token", uniform: true, value: .token("rightHanded"))),
            .attribute(USDAttribute(name: "points", typeName: "point3f[]",
                                    value: .float3Array(Self.quantised(mesh.positions, decimals: pointDecimals),
                                                        decimals: pointDecimals))),
            .attribute(USDAttribute(name: "subdivisionScheme", typeName: "token", uniform: true, value: .token("none"))),
        ]

        if groups.materials.count > 1 {
            prim.properties.append(.attribute(USDAttribute(name: "subsetFamily:materialBind:familyType", typeName: "token",
                                                           uniform: true, value: .token("partition"))))
            var subsetNames = USDNameScope()
            for g in 0..<groups.materials.count {
                let material = groups.materials[g]
                var subset = USDPrim(typeName: "GeomSubset",
                                     name: subsetNames.unique(table.entries[material].name, fallback: "subset"),
                                     apiSchemas: ["MaterialBindingAPI"])
                subset.properties = [
                    .attribute(USDAttribute(name: "elementType", typeName: "token", uniform: true, value: .token("face"))),
                    .attribute(USDAttribute(name: "familyName", typeName: "token", uniform: true, value: .token("materialBind"))),
                    .attribute(USDAttribute(name: "indices", typeName: "int[]",
                                            value: .intArray(Array(groups.faces[groups.offsets[g]..<groups.offsets[g + 1]])))),
                    binding(material),
                ]
                prim.children.append(subset)
            }
        }
        return prim
    }

    private func binding(_ material: Int) -> USDProperty {
        .relationship(name: "material:binding", target: USDPath(prim: materialsPath + [table.entries[material].name]))
    }

    private func materialsScope() -> USDPrim {
        var scope = USDPrim(typeName: "Scope", name: "Materials")
        for m in table.entries {
            var material = USDPrim(typeName: "Material", name: m.name)
            material.properties = [.attribute(USDAttribute(
                name: "outputs:surface", typeName: "token",
                connection: USDPath(prim: materialsPath + [m.name, "PreviewSurface"], property: "outputs:surface")))]
            var shader = USDPrim(typeName: "Shader", name: "PreviewSurface")
            shader.properties = [
                .attribute(USDAttribute(name: "info:id", typeName: "token", uniform: true, value: .token("UsdPreviewSurface"))),
                .attribute(USDAttribute(name: "inputs:diffuseColor", typeName: "color3f", value: .float3(m.color))),
                .attribute(USDAttribute(name: "inputs:metallic", typeName: "float", value: .float(m.metallic))),
            ]
            if m.opacity < 1 {
                shader.properties.append(.attribute(USDAttribute(name: "inputs:opacity", typeName: "float", value: .float(m.opacity))))
            }
            shader.properties.append(.attribute(USDAttribute(name: "inputs:roughness", typeName: "float", value: .float(m.roughness))))
            shader.properties.append(.attribute(USDAttribute(name: "outputs:surface", typeName: "token")))
            material.children = [shader]
            scope.children.append(material)
        }
        return scope
    }

    // MARK: The decimal grid

    /// Fewest places that move no coordinate by more than `relative` × `magnitude`.
    static func decimals(magnitude: Double, relative: Double) -> Int {
        TextBuffer.USDAFixed(magnitude: magnitude, relative: relative).decimals
    }

    /// `v` rounded half away from zero to `decimals` places, as the float that reading the printed
    /// decimal gives (the nearest double to the decimal, then the nearest float); values too large
    /// for the fixed form stay as they are (the text writes them in the shortest exact form).
    static func quantised(_ v: Float, scale: Double) -> Float {
        guard v.isFinite else { return 0 }
        guard Double(v.magnitude) * scale + 0.5 < 9.0e15 else { return v }
        let steps = (Double(v.magnitude) * scale + 0.5).rounded(.down)
        let q = Float(steps / scale)
        return v < 0 ? -q : q
    }

    static func quantised(_ values: [SIMD3<Float>], decimals: Int) -> [SIMD3<Float>] {
        let scale = TextBuffer.pow10(decimals)
        return values.map { SIMD3(quantised($0.x, scale: scale), quantised($0.y, scale: scale), quantised($0.z, scale: scale)) }
    }
}
