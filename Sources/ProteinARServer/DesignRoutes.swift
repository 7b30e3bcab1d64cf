import Foundation
import Hummingbird
import Molecule
import MoleculeLibrary
import ProteinDesign
import Rooms
import SceneExport
import Storage

/// The builder over HTTP. `POST /api/designs` builds a design and says whether it holds together
/// (and keeps it in the library with `"save": true`); `GET /api/designs/{design.pdb|design.cif|model.*}`
/// serves the files of a design named by its query (`pieces`, `seed`, `sequence`): a design is
/// reproducible, so its URL is all it takes, and AR Quick Look can open the USDZ link directly.
/// `GET /api/designs/pieces.*` serves the pieces before Try, not yet joined, side by side
/// (`ProteinDesigner.pieceLayout`), so they can be seen and placed in AR as the original game did.
struct DesignRoutes: Sendable {
    let service: LibraryService
    let accounts: AccountRoutes
    let limits: ServerLimits
    let fairShare: FairShare

    /// `asking`: behind the authenticator (a design kept in the library has an owner); a design's
    /// files serve anyone alike.
    func register(on api: RouterGroup<ServerContext>, asking: RouterGroup<ServerContext>) {
        asking.post("designs") { request, context in try await build(request, context) }
        api.get("designs/:file") { request, context in try await file(request, context: context) }
    }

    struct DesignRequest: Decodable {
        enum Pieces: Decodable {
            case text(String)
            case list([Piece])
            init(from decoder: Decoder) throws {
                let container = try decoder.singleValueContainer()
                if let text = try? container.decode(String.self) { self = .text(text) } else { self = .list(try container.decode([Piece].self)) }
            }
        }
        struct Piece: Decodable { var kind: String; var length: Int? }
        var pieces: Pieces
        var sequence: String?
        var seed: UInt64?
        var hydrogens: Bool?
        var save: Bool?
    }

    func build(_ request: Request, _ context: ServerContext) async throws -> Response {
        let decoded = try await JSONBody.decode(DesignRequest.self, from: request,
            example: #"{"pieces": "helix:14,coil:4,helix:14" or [{"kind": "helix", "length": 14}, …], "sequence"?, "seed"?, "hydrogens"?, "save"?}"#)
        let spec = try Self.spec(decoded)
        var owner: String?
        if decoded.save == true {
            owner = try context.identityForChange(request).account?.id
            guard owner != nil || limits.openLibrary else { throw APIError(.unauthorized, "sign in to save designs in the library") }
        }
        let design = try await fairShare.work(for: request, context) { try await service.design(spec, admission: $0) }
        var saved: MoleculeRecord?
        if decoded.save == true { saved = try await call { try await service.save(design, owner: owner) } }
        return Responses.json(try Self.json(design, saved: saved))
    }

    static func spec(_ r: DesignRequest) throws -> DesignSpec {
        var spec = try pieces(r)
        spec.hydrogens = r.hydrogens ?? false
        return spec
    }

    private static func pieces(_ r: DesignRequest) throws -> DesignSpec {
        do {
            switch r.pieces {
            case .text(let text): return try DesignSpec(parsing: text, sequence: r.sequence, seed: r.seed ?? 1)
            case .list(let list):
                var pieces: [ProteinDesign.Piece] = []
                for (i, p) in list.enumerated() {
                    guard let kind = PieceKind(name: p.kind) else {
                        throw DesignError("piece \(i + 1) '\(p.kind.prefix(40))' is not a piece; accepted: \(PieceKind.acceptedNames)")
                    }
                    pieces.append(ProteinDesign.Piece(kind, length: p.length))
                }
                return try DesignSpec(pieces: pieces, sequence: r.sequence, seed: r.seed ?? 1)
            }
        } catch let error as DesignError {
            throw APIError(.badRequest, error.message)
        }
    }

    func file(_ request: Request, context: ServerContext) async throws -> Response {
        let name = context.parameters.get("file") ?? ""
        var parameters: [String: String] = [:]
        for (key, value) in request.uri.queryParameters { parameters[String(key)] = String(value) }
        guard let pieces = parameters.removeValue(forKey: "pieces") else {
            throw APIError(.badRequest, "pieces: required, e.g. ?pieces=helix:14,coil:4,helix:14")
        }
        let sequence = parameters.removeValue(forKey: "sequence")
        let seedText = parameters.removeValue(forKey: "seed")
        let hydrogensText = parameters.removeValue(forKey: "hydrogens")
        // The layout of the pieces has nothing random in it: a seed would only make URLs that differ
        // for the same bytes.
        let isPieces = name.hasPrefix("pieces.")
        if isPieces, seedText != nil {
            throw APIError(.badRequest, "seed: the pieces are laid out without one (the seed only chooses how Try joins them); accepted: pieces, sequence and the model options")
        }
        guard let seed = seedText.map({ UInt64($0) }) ?? 1 else {
            throw APIError(.badRequest, "seed '\(seedText?.prefix(20) ?? "")': expected a whole number")
        }
        if isPieces, hydrogensText != nil {
            throw APIError(.badRequest, "hydrogens: the pieces are shown without them (a built design can have them); accepted: pieces, sequence and the model options")
        }
        guard hydrogensText == nil || hydrogensText == "true" || hydrogensText == "false" else {
            throw APIError(.badRequest, "hydrogens '\(hydrogensText?.prefix(20) ?? "")': accepted: true, false")
        }
        let spec = try Self.spec(DesignRequest(pieces: .text(pieces), sequence: sequence, seed: seed, hydrogens: hydrogensText == "true", save: nil))
        // A design is fixed by its URL, so a browser's cached copy is answered before any building.
        let model: ModelRequest?
        switch name {
        case "design.pdb", "design.cif":
            guard parameters.isEmpty else { throw APIError(.badRequest, "unknown parameter '\(parameters.keys.sorted()[0])'; accepted: pieces, sequence, seed, hydrogens") }
            model = nil
        default:
            let stem = isPieces ? "pieces." : "model."
            guard name.hasPrefix(stem), let format = ModelFormat(rawValue: String(name.dropFirst(stem.count))), format != .mtl else {
                let formats = ModelFormat.allCases.filter { $0 != .mtl }
                throw APIError(.notFound, "no resource '\(name.prefix(80))'; available: design.pdb, design.cif, "
                               + (formats.map { "model.\($0.rawValue)" } + formats.map { "pieces.\($0.rawValue)" }).joined(separator: ", "))
            }
            model = try call { try ModelRequest(format: format, parameters: parameters) }
        }
        // The pieces' recipe differs from the design's, so their cached models never stand for each other.
        let recipe = isPieces ? LibraryService.piecesRecipe(spec) : LibraryService.recipe(spec)
        let tag = String((model?.cacheKey(fileHash: recipe) ?? ModelRequest.cacheKey(source: recipe, variant: name)).prefix(32))
        if let match = request.headers[.ifNoneMatch], match.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == "\"\(tag)\"" }) {
            return Response(status: .notModified, headers: [.eTag: "\"\(tag)\""])
        }
        // Designs are cached like models: in memory, under the key of their recipe and options.
        let key = model?.cacheKey(fileHash: recipe) ?? ModelRequest.cacheKey(source: recipe, variant: name)
        let type = model?.output.mediaType ?? (name == "design.pdb" ? "chemical/x-pdb" : "chemical/x-mmcif")
        let buffer: ByteBuffer
        if let hot = service.hot.get(key) {
            buffer = hot.buffer
        } else {
            let bytes = try await fairShare.work(for: request, try await context.identified(request, by: accounts.service)) { admission in
                try await service.designFile(key: key, admission: admission) {
                    if isPieces, let model { return try await service.piecesModel(of: spec, request: model) }
                    let design = try await service.design(spec)
                    if let model { return try await service.model(of: design, request: model) }
                    return name == "design.pdb" ? StructureWriter.pdb(design.structure) : StructureWriter.mmCIF(design.structure)
                }
            }
            buffer = service.hot.put(CachedModel(key: key, moleculeID: "design", mediaType: type, bytes: bytes)).buffer
        }
        return Responses.bytes(buffer, type: type, etag: tag, request: request, head: false,
                               disposition: "inline; filename=\"\(isPieces ? "pieces" : "design").\(name.split(separator: ".").last ?? "bin")\"")
    }

    /// The query that names a design in `GET /api/designs/…`.
    static func query(_ spec: DesignSpec) -> String {
        var items = [URLQueryItem(name: "pieces", value: spec.piecesText), URLQueryItem(name: "seed", value: String(spec.seed))]
        let defaults = (try? DesignSpec(pieces: spec.pieces, seed: spec.seed))?.sequence
        if spec.sequence != defaults { items.append(URLQueryItem(name: "sequence", value: String(spec.sequence))) }
        if spec.hydrogens { items.append(URLQueryItem(name: "hydrogens", value: "true")) }
        var components = URLComponents()
        components.queryItems = items
        return components.percentEncodedQuery ?? ""
    }

    /// The answer to a design (`DesignAnswer`, as `proteinar build --json` writes it) with the links to
    /// its files, and the molecule when it was kept.
    static func json(_ design: Design, saved: MoleculeRecord?) throws -> String {
        let query = query(design.spec)
        // A refused design's model lights what the refusal is about and dims the rest.
        var model = query
        if let marked = design.verdict.markedSelection {
            var components = URLComponents()
            components.queryItems = [URLQueryItem(name: "highlight", value: marked)]
            model += "&" + (components.percentEncodedQuery ?? "")
        }
        let links = DesignAnswer.Links(pdb: "/api/designs/design.pdb?\(query)", cif: "/api/designs/design.cif?\(query)",
                                       glb: "/api/designs/model.glb?\(model)", usdz: "/api/designs/model.usdz?\(model)")
        let text = String(decoding: try RoomWire.encoder.encode(DesignAnswer(design, links: links)), as: UTF8.self)
        guard let saved, text.hasSuffix("}") else { return text }
        return text.dropLast() + ",\"molecule\":" + JSONText.render(MoleculeJSON.value(saved)) + "}"
    }
}
