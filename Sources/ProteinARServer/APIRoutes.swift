import Foundation
import Hummingbird
import MoleculeLibrary
import MoleculeMesh
import PDBArchive
import Rooms
import SceneExport
import Storage

/// The JSON API under `/api` (described in `/api/openapi.yaml`).
struct APIRoutes: Sendable {
    let service: LibraryService
    let accounts: AccountRoutes
    let limits: ServerLimits
    let fairShare: FairShare
    /// Uploads per hour, per account (per address in an open library).
    let uploads: RateLimiter
    /// What opening entries from the archives may cost.
    let openings: ArchiveOpenings
    /// Searches that reach the archive, per client and per address.
    let searches: SearchLimits

    /// Bodies `POST /api/molecules` takes besides JSON: structure files. A form or `text/plain`
    /// (what another site's page may send without asking) is refused before anything is read.
    static let fileTypes = ["chemical/", "application/octet-stream", "application/gzip", "application/x-gzip"]

    /// `asking`: the routes that ask who sent the request (behind the authenticator); `api`: those
    /// that serve anyone alike (a molecule, its file, models and thumbnails, the model options),
    /// which cost no session lookup unless they start costly work (`identified(_:by:)`).
    func register(on api: RouterGroup<ServerContext>, asking: RouterGroup<ServerContext>) {
        asking.get("molecules") { request, context in try await list(request, context) }
        asking.post("molecules") { request, context in try await add(request, context: context) }
        api.get("molecules/:id") { _, context in try await detail(context) }
        asking.delete("molecules/:id") { request, context in try await remove(request, context) }
        asking.put("profile/molecules/:id") { request, context in try await keep(request, context, true) }
        asking.delete("profile/molecules/:id") { request, context in try await keep(request, context, false) }
        api.get("molecules/:id/file") { request, context in try await file(request, context: context) }
        api.get("molecules/:id/:resource") { request, context in try await resource(request, context: context, head: false) }
        api.head("molecules/:id/:resource") { request, context in try await resource(request, context: context, head: true) }
        asking.get("archive/:id") { request, context in try await open(request, context) }
        asking.get("search") { request, context in try await search(request, context) }
        api.get("model-options") { _, _ in Self.modelOptions }
        DesignRoutes(service: service, accounts: accounts, limits: limits, fairShare: fairShare).register(on: api, asking: asking)
    }

    /// What the model routes accept (`ModelOptionsDescription`), written once: the page's menus
    /// are built from it. It changes only with the server, so a browser may keep it an hour.
    static let modelOptionsText = (try? RoomWire.encoder.encode(ModelOptionsDescription(limits: .web))).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    static var modelOptions: Response {
        var response = Responses.json(modelOptionsText)
        response.headers[.cacheControl] = "public, max-age=3600"
        return response
    }

    /// Whom rate limits count (uploads, room points): the account, else the client's address.
    static func client(_ request: Request, _ context: ServerContext) throws -> String {
        if request.headers[.authorization] != nil || request.cookies[AccountRoutes.cookieName] != nil,
           let account = try context.checkedIdentity().account {
            return account.id
        }
        return "address:" + context.clientAddress
    }

    /// Who gets a fair share of the conversions and downloads: the account, else the anonymous
    /// browser (its signed client id), else the address; with the address for its ceiling.
    static func share(_ request: Request, _ context: ServerContext) throws -> Client {
        if request.headers[.authorization] != nil || request.cookies[AccountRoutes.cookieName] != nil,
           let account = try context.checkedIdentity().account {
            return Client(key: account.id, address: context.clientAddress)
        }
        if let anonymous = context.anonymousClient { return Client(key: "anonymous:" + anonymous, address: context.clientAddress) }
        return Client(key: "address:" + context.clientAddress, address: context.clientAddress)
    }

    // MARK: Library

    func list(_ request: Request, _ context: ServerContext) async throws -> Response {
        let q = request.uri.queryParameters
        var query = MoleculeQuery()
        if let text = q.get("q") {
            guard text.count <= 200, text.split(separator: " ").count <= 8 else {
                throw APIError(.badRequest, "q: at most 8 words and 200 characters")
            }
            query.text = text
        }
        if let s = q.get("source") {
            guard let source = MoleculeSource(rawValue: s) else {
                throw APIError(.badRequest, "source '\(s)': accepted: \(MoleculeSource.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            query.source = source
        }
        query.offset = try wholeNumber(request, "offset", in: 0...Int.max, default: query.offset)
        query.limit = try wholeNumber(request, "limit", in: 1...500, default: query.limit)
        if let mine = q.get("mine") {
            guard mine == "true" || mine == "false" else { throw APIError(.badRequest, "mine '\(mine.prefix(20))': accepted: true, false") }
            if mine == "true" { query.keptBy = try context.requireAccount(request, change: false).0.id }
        }
        if let s = q.get("sort") {
            guard let order = MoleculeQuery.Order(rawValue: s) else {
                throw APIError(.badRequest, "sort '\(s)': accepted: \(MoleculeQuery.Order.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            query.order = order
        }
        let page = try await call { try await service.molecules(query) }
        return Responses.json(MoleculeJSON.list(page, query: query))
    }

    func detail(_ context: ServerContext) async throws -> Response {
        let id = try context.parameters.require("id")
        let record = try await call { try await service.molecule(id: id) }
        try? await service.touch(id: id)
        return Responses.json(MoleculeJSON.detail(record))
    }

    /// The administrator may delete any molecule, the owner their own uploads and designs.
    func remove(_ request: Request, _ context: ServerContext) async throws -> Response {
        let id = try context.parameters.require("id")
        let identity = try context.identityForChange(request)
        guard let account = identity.account else {
            throw APIError(.unauthorized, "sign in to delete: only the administrator or the person who added a molecule may delete it")
        }
        let record = try await call { try await service.molecule(id: id) }
        guard account.isAdmin || (record.ownerID != nil && record.ownerID == account.id) else {
            throw APIError(.forbidden, "only the administrator or the person who added \(id) may delete it")
        }
        try await call { try await service.remove(id: id) }
        return Response(status: .noContent)
    }

    /// `PUT` keeps a molecule in the signed-in person's list, `DELETE` takes it off.
    func keep(_ request: Request, _ context: ServerContext, _ keep: Bool) async throws -> Response {
        let id = try context.parameters.require("id")
        let (account, _) = try context.requireAccount(request, change: true)
        if keep {
            try await call { try await service.keep(id: id, account: account.id) }
        } else {
            guard try await call({ try await service.unkeep(id: id, account: account.id) }) else {
                throw APIError(.notFound, "\(id.prefix(64)) is not in your molecules")
            }
        }
        return Response(status: .noContent)
    }

    /// Opens an RCSB PDB entry or AlphaFold DB model for anyone: the library's, the archive
    /// cache's, or downloaded into the archive cache (see `LibraryService.open`). With
    /// `Accept: text/event-stream` the answer is progress events, then `done` with the molecule.
    func open(_ request: Request, _ context: ServerContext) async throws -> Response {
        let text = try context.parameters.require("id")
        guard let id = EntryID(text) else {
            throw APIError(.badRequest, "'\(text.prefix(80))' is not an entry id; expected \(EntryID.acceptedForms)")
        }
        let admission = openings.admission(for: try await Self.share(request, context))
        if Responses.wantsEventStream(request) {
            return Responses.eventStream { progress in
                JSONText.render(MoleculeJSON.value(try await service.open(id, admission: admission, progress: progress)))
            }
        }
        let record = try await call { try await whileConnected(context.channel) { try await service.open(id, admission: admission) } }
        var response = Responses.json(MoleculeJSON.detail(record))
        response.headers[.cacheControl] = "no-cache"
        return response
    }

    /// `{"id": "4HHB"}` (JSON) fetches from the archives; any other body is a structure file,
    /// named by `?name=`. With `Accept: text/event-stream` the answer is progress events, then
    /// `done` with the molecule (or `error`).
    func add(_ request: Request, context: ServerContext) async throws -> Response {
        let contentType = (request.headers[.contentType] ?? "").lowercased()
        let isJSON = contentType.hasPrefix("application/json")
        guard isJSON || Self.fileTypes.contains(where: { contentType.hasPrefix($0) }) else {
            throw APIError(.unsupportedMediaType, "send {\"id\": \"4HHB\"} as application/json, or a structure file as "
                           + "application/octet-stream (or chemical/x-pdb, chemical/x-mmcif, application/gzip); not '\(contentType.prefix(60))'")
        }
        let identity = try context.identityForChange(request)
        let owner = identity.account?.id
        guard owner != nil || limits.openLibrary else {
            throw APIError(.unauthorized, "sign in to add molecules to the library (anyone may look at them)")
        }
        if !isJSON { try call { try uploads.take(owner ?? "address:" + context.clientAddress, what: "uploads") } }
        let body = try await call { try await request.body.collect(upTo: service.maxUploadBytes) }
        let work: @Sendable (ProgressHandler?) async throws -> (MoleculeRecord, Bool)
        if isJSON {
            struct FetchRequest: Decodable { var id: String }
            guard let decoded = try? JSONDecoder().decode(FetchRequest.self, from: Data(body.readableBytesView)) else {
                throw APIError(.badRequest, "expected {\"id\": \"…\"} with \(EntryID.acceptedForms)")
            }
            guard let id = EntryID(decoded.id) else {
                throw APIError(.badRequest, "'\(decoded.id.prefix(80))' is not an entry id; expected \(EntryID.acceptedForms)")
            }
            work = { progress in
                let inLibraryBefore = try await service.record(id: id.libraryID)?.inLibrary ?? false
                return (try await service.fetch(id, for: owner, progress: progress), !inLibraryBefore)
            }
        } else {
            let name = request.uri.queryParameters.get("name") ?? "upload"
            let fileName = try Self.safeFileName(name)
            let bytes = [UInt8](body.readableBytesView)
            work = { progress in
                let started = Date()
                let record = try await service.add(bytes: bytes, fileName: fileName, owner: owner, progress: progress)
                return (record, record.addedAt >= started.addingTimeInterval(-1))  // an earlier upload of the same file is returned as is
            }
        }
        if Responses.wantsEventStream(request) {
            return Responses.eventStream { progress in
                let (record, _) = try await work(progress)
                return JSONText.render(MoleculeJSON.value(record))
            }
        }
        let (record, created) = try await call { try await work(nil) }
        var response = Responses.json(JSONText.render(MoleculeJSON.value(record)), status: created ? .created : .ok)
        response.headers[.location] = "/api/molecules/\(record.id)"
        return response
    }

    // MARK: Files and models

    /// The original file as stored, gzip-compressed (`Content-Encoding: gzip`) for every client
    /// that accepts it, so a request costs the stored bytes, not the inflated file; inflated only
    /// for clients that do not, and only up to `plainFileLimit`.
    func file(_ request: Request, context: ServerContext) async throws -> Response {
        let id = try context.parameters.require("id")
        let disposition: @Sendable (MoleculeRecord) -> String = { "attachment; filename=\"\($0.id).\(Self.fileType($0.format).1)\"" }
        if CompressionMiddleware<ServerContext>.acceptsGzip(request.headers[values: .acceptEncoding]) {
            let (record, gzip) = try await call { try await service.storedFile(id: id) }
            // The ETag the compression middleware compares (it takes "-gz" off what the client sends).
            var response = Responses.bytes(ByteBuffer(bytes: gzip), type: Self.fileType(record.format).0, etag: record.fileHash,
                                           request: request, head: false, disposition: disposition(record))
            if response.status == .ok { response.headers[.contentEncoding] = "gzip" }
            CompressionMiddleware<ServerContext>.addVary(&response.headers)
            CompressionMiddleware<ServerContext>.tagGzip(&response.headers)
            return response
        }
        let record = try await call { try await service.molecule(id: id) }
        guard record.fileSize <= Self.plainFileLimit else {
            throw APIError(.notAcceptable, "\(id)'s file is \(record.fileSize >> 20) MB uncompressed and is sent gzip-compressed only: "
                           + "ask with Accept-Encoding: gzip (browsers do; curl --compressed)")
        }
        let (_, bytes) = try await call { try await service.originalFile(id: id) }
        var response = Responses.bytes(ByteBuffer(bytes: bytes), type: Self.fileType(record.format).0, etag: record.fileHash, request: request,
                                       head: false, disposition: disposition(record))
        CompressionMiddleware<ServerContext>.addVary(&response.headers)
        return response
    }

    /// The largest file sent inflated (to a client that does not accept gzip): each such request
    /// holds the whole file while it is sent.
    static let plainFileLimit = 8 << 20

    /// `model.{glb,usdz,obj,mtl,stl,dae,ply}` with the convert options as query parameters,
    /// `thumbnail.png?size=256`, `identify.json` (what the viewer's feature ids name), `interactions`
    /// (each ligand's binding site and the interactions that hold it) or `compare?with=ID` (how another
    /// library molecule superposes on this one, and their morph).
    func resource(_ request: Request, context: ServerContext, head: Bool) async throws -> Response {
        let id = try context.parameters.require("id")
        let name = try context.parameters.require("resource")
        var parameters: [String: String] = [:]
        for (k, v) in request.uri.queryParameters { parameters[String(k)] = String(v) }
        // A thumbnail, the identify table, the interactions or a comparison: one of a kind, made once, then served from memory.
        if name == "thumbnail.png" || name == "identify.json" || name == "interactions" || name == "compare" {
            let made = try call {
                switch name {
                case "identify.json": return ModelRequest.identify
                case "interactions": return ModelRequest.interactions
                case "compare":
                    guard let other = parameters["with"], parameters.count == 1 else {
                        throw RequestError("compare: give the other molecule as ?with=ID (its library id), and nothing else")
                    }
                    return try ModelRequest.comparison(with: other)
                default: return try ModelRequest.picture(parameters)
                }
            }
            if let hot = try await call({ try await service.hotModel(id: id, request: made) }) {
                return Responses.bytes(hot.buffer, type: hot.mediaType, etag: hot.key, request: request, head: head, disposition: nil)
            }
            let served = try await fairShare.work(for: request, try await context.identified(request, by: accounts.service)) {
                try await service.servedModel(id: id, request: made, admission: $0)
            }
            return Responses.bytes(served.buffer, type: served.mediaType, etag: served.key, request: request, head: head, disposition: nil)
        }
        guard name.hasPrefix("model."), let format = ModelFormat(rawValue: String(name.dropFirst(6))) else {
            throw APIError(.notFound, "no resource '\(name.prefix(80))'; available: "
                           + ModelFormat.allCases.map { "model.\($0.rawValue)" }.joined(separator: ", ") + ", thumbnail.png, identify.json, interactions, compare?with=ID, file")
        }
        let modelRequest = try call { try ModelRequest(format: format, parameters: parameters) }
        if Responses.wantsEventStream(request), !head {
            let admission = fairShare.admission(for: try await Self.share(request, try await context.identified(request, by: accounts.service)))
            return Responses.eventStream { progress in
                let model = try await service.model(id: id, request: modelRequest, admission: admission, progress: progress)
                var url = "/api/molecules/\(id)/\(name)"
                if let query = request.uri.query, !query.isEmpty { url += "?" + query }
                return JSONText.object(["url": .string(url), "bytes": .int(model.bytes.count), "etag": .string(model.key),
                                        "mediaType": .string(model.mediaType)])
            }
        }
        let disposition = "inline; filename=\"\(id).\(format.rawValue)\""
        if let model = try await call({ try await service.hotModel(id: id, request: modelRequest) }) {
            return Responses.bytes(model.buffer, type: model.mediaType, etag: model.key, request: request, head: head,
                                   disposition: disposition, negotiated: true)
        }
        let model = try await fairShare.work(for: request, try await context.identified(request, by: accounts.service)) {
            try await service.servedModel(id: id, request: modelRequest, admission: $0)
        }
        return Responses.bytes(model.buffer, type: model.mediaType, etag: model.key, request: request, head: head, disposition: disposition,
                               negotiated: true)
    }

    // MARK: Search

    /// RCSB full-text search: answers kept a minute and shared (`SearchCache`); only searches that
    /// reach the archive count against the client's and its address's budget.
    func search(_ request: Request, _ context: ServerContext) async throws -> Response {
        let q = request.uri.queryParameters
        guard let text = q.get("q")?.trimmingCharacters(in: .whitespaces), !text.isEmpty else {
            throw APIError(.badRequest, "search needs words: /api/search?q=hemoglobin")
        }
        guard text.count <= 200 else { throw APIError(.badRequest, "search words: at most 200 characters") }
        let start = try wholeNumber(request, "start", in: 0...Int.max, default: 0)
        let rows = try wholeNumber(request, "rows", in: 1...100, default: 10)
        let admission = searches.admission(for: try await Self.share(request, context))
        let results = try await call { try await service.searches.search(text, start: start, rows: rows, archive: service.archive, admission: admission) }
        let data = try JSONEncoder().encode(results)
        return Responses.json(String(decoding: data, as: UTF8.self))
    }

    // MARK: Helpers

    /// Runs `body`, turning service errors into API errors with the right status.

    /// An upload's name is only used for messages and format hints: a plain file name, no folders.
    static func safeFileName(_ name: String) throws -> String {
        guard !name.isEmpty, name.count <= 128, !name.contains("/"), !name.contains("\\"), !name.contains(".."),
              name.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F }) else {
            throw APIError(.badRequest, "name '\(name.prefix(80))': expected a plain file name such as 4hhb.cif (no folders, no ..)")
        }
        return name
    }

    static func fileType(_ format: String) -> (String, String) {
        switch format {
        case "pdb": return ("chemical/x-pdb", "pdb")
        case "mmcif", "cif", "ccd": return ("chemical/x-mmcif", "cif")
        case "bcif": return ("application/octet-stream", "bcif")
        case "sdf", "mol": return ("chemical/x-mdl-sdfile", "sdf")
        case "xyz": return ("chemical/x-xyz", "xyz")
        default: return ("application/octet-stream", "dat")
        }
    }
}
