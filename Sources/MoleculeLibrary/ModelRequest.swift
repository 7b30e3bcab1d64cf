import Crypto
import Foundation
import MoleculeMesh

/// The file formats a model can be asked for, with their media types.
public enum ModelFormat: String, CaseIterable, Sendable {
    case glb, usdz, obj, mtl, stl, dae, ply

    public var mediaType: String {
        switch self {
        case .glb: return "model/gltf-binary"
        case .usdz: return "model/vnd.usdz+zip"
        case .obj: return "model/obj"
        case .mtl: return "model/mtl"
        case .stl: return "model/stl"
        case .dae: return "model/vnd.collada+xml"
        case .ply: return "application/x-ply"
        }
    }
}

/// Something a person asked for that cannot be done as asked; the message says what is accepted.
public struct RequestError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// A model as asked for: format and the convert options, checked, with a canonical text that keys
/// the cache (so `?style=cartoon&color=chain` and `?color=chain&style=cartoon` share one entry).
public struct ModelRequest: Sendable, Equatable {
    public var format: ModelFormat
    public var style: Representation = .auto
    public var color: ColorScheme?
    public var select: String?
    public var highlight: String?
    public var hide: Set<HiddenGroup> = [.water]
    public var assembly: String?
    public var maxTriangles = 300_000
    /// Longest side in metres; nil for true scale.
    public var size: Float? = 0.3

    public static let parameterNames = ["style", "color", "select", "highlight", "hide", "assembly", "max-triangles", "size", "true-scale"]

    public init(format: ModelFormat) { self.format = format }

    /// Reads the query parameters of a model URL (the names of `proteinar convert`'s options).
    public init(format: ModelFormat, parameters: [String: String]) throws {
        self.format = format
        for name in parameters.keys where !Self.parameterNames.contains(name) {
            throw RequestError("unknown parameter '\(name)'; accepted: \(Self.parameterNames.joined(separator: ", "))")
        }
        do {
            if let s = parameters["style"] { style = try Representation(argument: s) }
            if let c = parameters["color"] { color = try ColorScheme(argument: c) }
            if let h = parameters["hide"] { hide = h.isEmpty || h == "none" ? [] : try HiddenGroup.parse(h) }
            if let s = parameters["select"], !s.isEmpty { _ = try Selection(parsing: s); select = s }
            if let h = parameters["highlight"], !h.isEmpty { _ = try Selection(parsing: h); highlight = h }
        } catch {
            throw RequestError("\(error)")
        }
        if let a = parameters["assembly"], !a.isEmpty {
            guard a.count <= 16, a.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else {
                throw RequestError("assembly '\(a)': expected an assembly id such as 1")
            }
            assembly = a
        }
        if let m = parameters["max-triangles"] {
            guard let n = Int(m), (1_000...5_000_000).contains(n) else {
                throw RequestError("max-triangles '\(m)': expected a whole number from 1000 to 5000000")
            }
            maxTriangles = n
        }
        if let s = parameters["size"] {
            guard let v = Float(s), v.isFinite, v >= 0.01, v <= 100 else {
                throw RequestError("size '\(s)': expected metres from 0.01 to 100")
            }
            size = v
        }
        if let t = parameters["true-scale"], ["1", "true", "yes"].contains(t.lowercased()) { size = nil }
    }

    public var sceneOptions: MoleculeSceneOptions {
        var o = MoleculeSceneOptions()
        o.representation = style
        o.colorScheme = color
        o.selection = select
        o.highlight = highlight
        o.hide = hide
        o.assembly = assembly
        o.maxTriangles = maxTriangles
        o.size = size
        return o
    }

    /// The options in a fixed order, for cache keys and file names.
    public var canonical: String {
        [format.rawValue, style.rawValue, color?.rawValue ?? "-", select ?? "-", highlight ?? "-",
         hide.map(\.rawValue).sorted().joined(separator: ","), assembly ?? "-", String(maxTriangles),
         size.map { String($0) } ?? "true-scale"].joined(separator: "|")
    }

    /// Cache key: the engine version, the original file's hash and the options.
    public func cacheKey(fileHash: String) -> String {
        Hashing.sha256Hex(Array("\(LibraryService.engineVersion)|\(fileHash)|\(canonical)".utf8))
    }
}

public enum Hashing {
    public static func sha256Hex(_ bytes: [UInt8]) -> String {
        SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
    }
}
