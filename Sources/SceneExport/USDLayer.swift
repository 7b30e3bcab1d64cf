/// A USD layer as the USDZ writer builds it: just the specs a UsdPreviewSurface scene needs (prims,
/// attributes, relationships, composition by internal reference). `USDLayerBuilder` makes one from a
/// scene; `USDATextWriter` writes it as USDA text and `USDCrateWriter` as a binary crate (`.usdc`),
/// so the two formats always describe the same layer.
///
/// Names are valid USD identifiers already (the builder makes them with `USDNameScope`); property
/// names may be namespaced with `:`.
struct USDLayer {
    var defaultPrim: String
    var documentation: String
    var metersPerUnit: Double
    var upAxis: String
    var rootPrims: [USDPrim] = []
}

/// An absolute path: prim names from the root, and a property name for a property path.
struct USDPath: Hashable {
    var prim: [String]
    var property: String? = nil
}

struct USDPrim {
    enum Specifier: UInt8 {
        case def = 0, over = 1, `class` = 2
    }

    var specifier: Specifier = .def
    /// nil for a typeless prim (the `class "Prototypes"` holder).
    var typeName: String?
    var name: String
    var kind: String? = nil
    var instanceable = false
    /// `prepend apiSchemas = [...]`.
    var apiSchemas: [String] = []
    /// `prepend references = </path>`: internal references (no asset path).
    var references: [USDPath] = []
    var properties: [USDProperty] = []
    var children: [USDPrim] = []
}

enum USDProperty {
    case attribute(USDAttribute)
    /// `rel name = </target>`.
    case relationship(name: String, target: USDPath)

    var name: String {
        switch self {
        case .attribute(let a): return a.name
        case .relationship(let name, _): return name
        }
    }
}

struct USDAttribute {
    var name: String
    /// The Sdf value type name: `point3f[]`, `color3f`, `token`, … (the role lives only here).
    var typeName: String
    var uniform = false
    /// nil: declared without a value (a shader's `outputs:surface`).
    var value: USDValue?
    /// Primvar metadata (`vertex` for normals).
    var interpolation: String? = nil
    /// `.connect = </path.property>`.
    var connection: USDPath? = nil
}

enum USDValue {
    case bool(Bool)
    case float(Float)
    case token(String)
    case float3(SIMD3<Float>)
    /// Row-major, as USD reads it (row vectors multiplied on the left).
    case matrix4d([Double])
    /// Values already on a grid of `decimals` places (see `USDLayerBuilder.quantised`): the text
    /// writes exactly those places, and reading the text gives back exactly these floats.
    case float3Array([SIMD3<Float>], decimals: Int)
    case intArray([Int32])
    case tokenArray([String])
}
