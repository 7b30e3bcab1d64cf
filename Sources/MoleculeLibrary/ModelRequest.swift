import Foundation
import Molecule
import MoleculeMesh
import SceneExport
import Storage

/// Something a person asked for that cannot be done as asked; the message says what is accepted.
public struct RequestError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// A model as asked for: what to make (a file in a scene format, or a picture) and the options
/// that say what to draw, checked, with a canonical text that keys the cache (so
/// `?style=cartoon&color=chain` and `?color=chain&style=cartoon` share one entry).
///
/// This is the one codec of model options: the HTTP routes, the command line (`convert`,
/// `render`), thumbnails, designs and room models all read options here, and every cached model's
/// key comes from `cacheKey`. Adding an option means adding it to `Option`, `sceneOptions` and
/// `canonical`, here and nowhere else.
public struct ModelRequest: Sendable {
    /// What is made.
    public enum Output: Sendable, Equatable {
        /// A file; a GLB is stored as `glb` says (see `GLBWriter.Encoding`).
        case file(ModelFormat, glb: GLBWriter.Encoding = .quantized)
        /// A PNG picture `pixels` square (thumbnails).
        case picture(pixels: Int)
        /// What a tap names: the first model's atoms and residues as JSON (`IdentifyTable`), which
        /// the feature ids of the viewer's GLB count; the same for every style.
        case identify
        /// Each ligand's binding site and interactions as JSON (`InteractionReport`): the file's alone.
        case interactions
        /// How the partner (`compare=`) superposes on the molecule, and its morph, as JSON (`ComparisonAnswer`).
        case comparison

        public var mediaType: String {
            switch self {
            case .file(let format, _): return format.mediaType
            case .picture: return "image/png"
            case .identify, .interactions, .comparison: return "application/json"
            }
        }

        var canonical: String {
            switch self {
            case .file(let format, let glb): return format == .glb && glb != .quantized ? "glb-\(glb.rawValue)" : format.rawValue
            case .picture(let pixels): return "png|\(pixels)"
            case .identify: return "identify"
            case .interactions: return "interactions"
            case .comparison: return "comparison"
            }
        }
    }

    /// The option names, as query parameters and as `proteinar convert`'s options (without `--`).
    public enum Option: String, CaseIterable, Sendable {
        case style, color, select, highlight, sticks, site, hide, assembly, model, compare, morph
        case maxTriangles = "max-triangles", size, trueScale = "true-scale", target, compression
    }

    /// Where the model is shown, which sets the default triangle budget: a phone placing a model
    /// in the room (AR Quick Look, Scene Viewer, WebXR) draws it beside the camera feed and gets
    /// it over a mobile network, so AR models get a third of the screen's budget (Apple's guidance
    /// for AR Quick Look is about 100,000 triangles). `max-triangles` overrides either.
    public enum Target: String, CaseIterable, Sendable {
        case ar, screen

        public var triangleBudget: Int { self == .ar ? 100_000 : 300_000 }

        /// USDZ exists for AR Quick Look, so it is made for AR unless asked otherwise.
        public static func defaultTarget(for format: ModelFormat) -> Target { format == .usdz ? .ar : .screen }
    }

    /// How far a value may go: a server takes requests from anyone, the command line from its user.
    public struct Limits: Sendable {
        public var triangles: ClosedRange<Int>
        /// Longest side in metres.
        public var metres: ClosedRange<Float>
        /// Side of a picture in pixels.
        public var pixels: ClosedRange<Int>
        /// The only picture sides accepted, when not any in `pixels`.
        public var pictureSizes: [Int]?
        /// Most characters of `select` and of `highlight`.
        public var selectionCharacters: Int
        /// Round `size` to two significant digits and `max-triangles` to the 1-2-5 series, so that
        /// requests cannot mint endless distinct models (each one a conversion and a cache entry).
        public var quantised: Bool

        public static let web = Limits(triangles: 1_000...1_000_000, metres: 0.01...100, pixels: 64...1024,
                                       pictureSizes: [64, 128, 256, 512, 1024], selectionCharacters: 1_000, quantised: true)
        public static let commandLine = Limits(triangles: 1...Int.max, metres: Float.leastNormalMagnitude...Float.greatestFiniteMagnitude,
                                               pixels: 1...8192, pictureSizes: nil, selectionCharacters: .max, quantised: false)
    }

    /// `n` moved to the nearest of 1, 2, 5, 10, 20, 50, … (on a log scale).
    public static func oneTwoFive(_ n: Int) -> Int {
        guard n > 1 else { return max(n, 1) }
        var best = 1, decade = 1
        while decade <= n * 10 && decade < Int.max / 10 {
            for step in [1, 2, 5] where decade <= Int.max / step {
                let value = step * decade
                if abs(log(Double(value)) - log(Double(n))) < abs(log(Double(best)) - log(Double(n))) { best = value }
            }
            decade *= 10
        }
        return best
    }

    /// `x` to two significant digits (0.123 → 0.12, 1.57 → 1.6), read back from its decimal text
    /// so that the canonical text is short.
    public static func twoSignificantDigits(_ x: Float) -> Float {
        guard x.isFinite, x > 0 else { return x }
        let exponent = Int(Double(x).log10Floor) - 1
        let mantissa = (Double(x) / pow(10, Double(exponent))).rounded()
        return Float("\(Int(mantissa))e\(exponent)") ?? x
    }

    /// The highest model number asked for (files with more models are read only this far).
    public static let mostModels = 10_000

    /// Most triangles of a thumbnail: a picture 2048 pixels square shows no more.
    public static let pictureTriangles = 150_000

    public var output: Output
    public var options: MoleculeSceneOptions

    public init(format: ModelFormat, options: MoleculeSceneOptions = MoleculeSceneOptions()) {
        self.output = .file(format); self.options = options
    }

    /// Reads the query parameters of a model URL (the names of `proteinar convert`'s options);
    /// an unknown name is an error.
    public init(format: ModelFormat, parameters: [String: String], limits: Limits = .web) throws(RequestError) {
        var parameters = parameters
        if parameters[Option.target.rawValue] == nil { parameters[Option.target.rawValue] = Target.defaultTarget(for: format).rawValue }
        var glb = GLBWriter.Encoding.quantized
        if let c = parameters.removeValue(forKey: Option.compression.rawValue) {
            // Our own viewer asks for meshopt; Scene Viewer and other readers get the default.
            guard format == .glb, let encoding = GLBWriter.Encoding(rawValue: c) else {
                throw RequestError(format == .glb
                    ? "compression '\(c.prefix(40))': expected \(GLBWriter.Encoding.allCases.map(\.rawValue).joined(separator: ", "))"
                    : "compression: only a GLB has a choice of compression")
            }
            glb = encoding
        }
        let options = try Self.sceneOptions(parameters, limits: limits)
        if options.allModels && format != .glb {
            throw RequestError("model=all: only a GLB carries the models (as an animation); ask for one model (model=N) in \(format.rawValue)")
        }
        self.init(output: .file(format, glb: glb), options: options)
    }

    /// A thumbnail: `size` in pixels (default 256) and `style`; other parameters are not read.
    public static func picture(_ parameters: [String: String], limits: Limits = .web) throws(RequestError) -> ModelRequest {
        let pixels = try parameters["size"].map { s throws(RequestError) -> Int in
            if let sizes = limits.pictureSizes {
                guard let v = Int(s), sizes.contains(v) else {
                    throw RequestError("size '\(s.prefix(40))': expected one of \(sizes.map(String.init).joined(separator: ", ")) pixels")
                }
                return v
            }
            guard let v = Int(s), limits.pixels.contains(v) else {
                throw RequestError("size '\(s.prefix(40))': expected pixels, \(limits.pixels.lowerBound) to \(limits.pixels.upperBound)")
            }
            return v
        } ?? 256
        var options = try sceneOptions(parameters.filter { $0.key == Option.style.rawValue }, limits: limits)
        options.maxTriangles = pictureTriangles
        return ModelRequest(output: .picture(pixels: pixels), options: options)
    }

    init(output: Output, options: MoleculeSceneOptions) { self.output = output; self.options = options }

    /// The identify table (`Output.identify`): it depends on the file alone, so no option is read.
    public static let identify = ModelRequest(output: .identify, options: MoleculeSceneOptions())
    /// The interactions (`Output.interactions`): the file's alone too.
    public static let interactions = ModelRequest(output: .interactions, options: MoleculeSceneOptions())

    /// How the library molecule `other` superposes on this one, and their morph (`Output.comparison`).
    public static func comparison(with other: String) throws(RequestError) -> ModelRequest {
        var options = MoleculeSceneOptions()
        options.partner = ScenePartner(.compare, id: try partnerID(other, option: "with"))
        return ModelRequest(output: .comparison, options: options)
    }

    /// A partner's library id (`LibraryService.isLibraryID`).
    static func partnerID(_ id: String, option: String) throws(RequestError) -> String {
        guard LibraryService.isLibraryID(id) else {
            throw RequestError("\(option) '\(id.prefix(40))': expected a library id (letters, digits, - and _, at most 64), such as 4AKE")
        }
        return id
    }

    /// The scene options that `parameters` name, each value checked so that a typo fails before
    /// any work. Options left out keep `MoleculeSceneOptions`' defaults.
    public static func sceneOptions(_ parameters: [String: String], limits: Limits = .web) throws(RequestError) -> MoleculeSceneOptions {
        var options = MoleculeSceneOptions()
        for name in parameters.keys where Option(rawValue: name) == nil {
            throw RequestError("unknown parameter '\(name.prefix(40))'; accepted: \(Option.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        for name in [Option.select, .highlight, .sticks, .site] {
            if let text = parameters[name.rawValue], text.count > limits.selectionCharacters {
                throw RequestError("\(name.rawValue): at most \(limits.selectionCharacters) characters (this one has \(text.count))")
            }
        }
        do {
            if let s = parameters["style"] { options.representation = try Representation(argument: s) }
            if let c = parameters["color"] { options.colorScheme = try ColorScheme(argument: c) }
            if let h = parameters["hide"] { options.hide = h.isEmpty || h == "none" ? [] : try HiddenGroup.parse(h) }
            if let s = parameters["select"], !s.isEmpty { _ = try Selection(parsing: s); options.selection = s }
            if let h = parameters["highlight"], !h.isEmpty { _ = try Selection(parsing: h); options.highlight = h }
            if let s = parameters["sticks"], !s.isEmpty { _ = try Selection(parsing: s); options.sticks = s }
        } catch {
            throw RequestError("\(error)")
        }
        if let s = parameters["site"], !s.isEmpty {
            // A ligand as `proteinar interactions --ligand` names it: a residue name or chain:number.
            guard s.count <= 24, s.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || ":-_".contains($0)) }) else {
                throw RequestError("site '\(s.prefix(40))': expected a ligand's residue name (AP5) or chain:number (A:215)")
            }
            options.site = s
        }
        if let a = parameters["assembly"], !a.isEmpty {
            guard a.count <= 16, a.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else {
                throw RequestError("assembly '\(a.prefix(40))': expected an assembly id such as 1")
            }
            options.assembly = a
        }
        if let m = parameters["model"] {
            if m == "all" {
                options.allModels = true
            } else {
                guard let n = Int(m), (1...Self.mostModels).contains(n) else {
                    throw RequestError("model '\(m.prefix(40))': expected a model's number from 1 to \(Self.mostModels), or all")
                }
                options.model = n
            }
        }
        for use in ScenePartner.Use.allCases {
            guard let id = parameters[use.rawValue] else { continue }
            guard options.partner == nil else { throw RequestError("compare and morph: one at a time") }
            guard options.site == nil else { throw RequestError("\(use.rawValue) and site: one at a time") }
            options.partner = ScenePartner(use, id: try partnerID(id, option: use.rawValue))
        }
        if options.partner?.use == .compare, options.allModels || options.model != 1 {
            throw RequestError("compare shows each molecule's first model; leave out model")
        }
        if let t = parameters["target"] {
            guard let target = Target(rawValue: t) else {
                throw RequestError("target '\(t.prefix(40))': expected \(Target.allCases.map(\.rawValue).joined(separator: " or "))")
            }
            options.maxTriangles = target.triangleBudget
        }
        if let m = parameters["max-triangles"] {
            guard let n = Int(m), limits.triangles.contains(n) else {
                throw RequestError("max-triangles '\(m.prefix(40))': expected a whole number \(describe(limits.triangles))")
            }
            options.maxTriangles = limits.quantised ? min(Self.oneTwoFive(n), limits.triangles.upperBound) : n
        }
        if let s = parameters["size"] {
            guard let v = Float(s), v.isFinite, limits.metres.contains(v) else {
                throw RequestError("size '\(s.prefix(40))': expected metres \(describe(limits.metres))")
            }
            options.size = limits.quantised ? min(max(Self.twoSignificantDigits(v), limits.metres.lowerBound), limits.metres.upperBound) : v
        }
        if let t = parameters["true-scale"], ["1", "true", "yes"].contains(t.lowercased()) { options.size = nil }
        return options
    }

    /// The request in a fixed order, for cache keys and file names.
    public var canonical: String {
        let o = options
        return [output.canonical, o.representation.rawValue, o.colorScheme?.rawValue ?? "-", o.selection ?? "-", o.highlight ?? "-",
                o.hide.map(\.rawValue).sorted().joined(separator: ","), o.assembly ?? "-", String(o.maxTriangles),
                o.size.map { String($0) } ?? "true-scale", o.sticks ?? "-", o.allModels ? "all" : String(o.model), o.site ?? "-",
                o.partner.map { "\($0.use.rawValue)=\($0.id)" } ?? "-"].joined(separator: "|")
    }

    /// Cache key (and ETag) of this request made from the file with hash `fileHash`.
    public func cacheKey(fileHash: String) -> String { Self.cacheKey(source: fileHash, variant: canonical) }

    /// The one cache key: the engine version, what the model is made from (a file's hash, a
    /// design's recipe) and what is made of it. Every cached or tagged model is keyed here, so a
    /// new engine version remakes them all.
    public static func cacheKey(source: String, variant: String) -> String {
        Hashing.sha256Hex(Array("\(LibraryService.engineVersion)|\(source)|\(variant)".utf8))
    }

    private static func describe<T: FixedWidthInteger>(_ range: ClosedRange<T>) -> String {
        range.upperBound == T.max ? "of at least \(range.lowerBound)" : "from \(range.lowerBound) to \(range.upperBound)"
    }

    private static func describe(_ range: ClosedRange<Float>) -> String {
        func text(_ x: Float) -> String { x == x.rounded() && x.magnitude < 1e9 ? String(Int(x)) : String(x) }
        return range.upperBound == .greatestFiniteMagnitude ? "above 0" : "from \(text(range.lowerBound)) to \(text(range.upperBound))"
    }
}

private extension Double {
    /// ⌊log₁₀ x⌋, exact at powers of ten (where `log10` may land just below).
    var log10Floor: Double {
        var e = Foundation.log10(self).rounded(.down)
        if Foundation.pow(10, e + 1) <= self { e += 1 }
        if Foundation.pow(10, e) > self { e -= 1 }
        return e
    }
}
