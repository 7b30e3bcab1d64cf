import Crypto
import Foundation
import MoleculeMesh
import SceneExport

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

    /// The scene in this format. OBJ refers to its materials as `mtlFileName`, which `.mtl` writes.
    public func encode(_ scene: TriangleScene, mtlFileName: String = "model.mtl") -> [UInt8] {
        switch self {
        case .glb: return GLBWriter.write(scene)
        case .usdz: return USDZWriter.write(scene)
        case .obj: return OBJWriter.write(scene, mtlFileName: mtlFileName).obj
        case .mtl: return OBJWriter.write(scene, mtlFileName: mtlFileName).mtl
        case .stl: return STLWriter.write(scene)
        case .dae: return DAEWriter.write(scene)
        case .ply: return PLYWriter.write(scene)
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
public struct ModelRequest: Sendable {
    public var format: ModelFormat
    public var options = MoleculeSceneOptions()

    public static let parameterNames = ["style", "color", "select", "highlight", "hide", "assembly", "max-triangles", "size", "true-scale"]

    public init(format: ModelFormat) { self.format = format }

    /// Reads the query parameters of a model URL (the names of `proteinar convert`'s options).
    public init(format: ModelFormat, parameters: [String: String]) throws {
        self.format = format
        for name in parameters.keys where !Self.parameterNames.contains(name) {
            throw RequestError("unknown parameter '\(name)'; accepted: \(Self.parameterNames.joined(separator: ", "))")
        }
        do {
            if let s = parameters["style"] { options.representation = try Representation(argument: s) }
            if let c = parameters["color"] { options.colorScheme = try ColorScheme(argument: c) }
            if let h = parameters["hide"] { options.hide = h.isEmpty || h == "none" ? [] : try HiddenGroup.parse(h) }
            if let s = parameters["select"], !s.isEmpty { _ = try Selection(parsing: s); options.selection = s }
            if let h = parameters["highlight"], !h.isEmpty { _ = try Selection(parsing: h); options.highlight = h }
        } catch {
            throw RequestError("\(error)")
        }
        if let a = parameters["assembly"], !a.isEmpty {
            guard a.count <= 16, a.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else {
                throw RequestError("assembly '\(a)': expected an assembly id such as 1")
            }
            options.assembly = a
        }
        if let m = parameters["max-triangles"] {
            guard let n = Int(m), (1_000...5_000_000).contains(n) else {
                throw RequestError("max-triangles '\(m)': expected a whole number from 1000 to 5000000")
            }
            options.maxTriangles = n
        }
        if let s = parameters["size"] {
            guard let v = Float(s), v.isFinite, v >= 0.01, v <= 100 else {
                throw RequestError("size '\(s)': expected metres from 0.01 to 100")
            }
            options.size = v
        }
        if let t = parameters["true-scale"], ["1", "true", "yes"].contains(t.lowercased()) { options.size = nil }
    }

    /// The options in a fixed order, for cache keys and file names.
    public var canonical: String {
        let o = options
        return [format.rawValue, o.representation.rawValue, o.colorScheme?.rawValue ?? "-", o.selection ?? "-", o.highlight ?? "-",
                o.hide.map(\.rawValue).sorted().joined(separator: ","), o.assembly ?? "-", String(o.maxTriangles),
                o.size.map { String($0) } ?? "true-scale"].joined(separator: "|")
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
