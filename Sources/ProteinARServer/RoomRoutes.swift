import Accounts
import Foundation
import Hummingbird
import LiveRooms
import MoleculeLibrary
import NIOCore
import RoomHost
import RoomModels
import Rooms
import SceneExport
import Storage

/// Rooms over HTTP: list, create, read, change settings, the log, and submitting an operation
/// without a socket (API clients). Members come by invitation (`InvitationRoutes`); the live socket
/// is `LiveRoomSocket`.
struct RoomRoutes: Sendable {
    let service: LibraryService
    let host: RoomHost
    let accounts: AccountRoutes
    let limits: ServerLimits
    let fairShare: FairShare
    /// Points of operations one client may send over HTTP: 30,000 a second (a pen draws about 30),
    /// 60,000 at once. Checking and storing cost grows with the points; without a limit one client
    /// filling a room as fast as it can held up everyone else (the socket has its own, per message).
    let operationPoints = RateLimiter(burst: 60_000, per: 2)
    /// What reading a room's log and past states may cost.
    let logReads = RoomLogReads()

    func register(on api: RouterGroup<ServerContext>) {
        api.get("rooms") { request, context in try await list(request, context) }
        api.post("rooms") { request, context in try await create(request, context) }
        api.get("rooms/:room") { request, context in try await detail(request, context) }
        api.patch("rooms/:room") { request, context in try await change(request, context) }
        api.get("rooms/:room/operations") { request, context in try await operations(request, context) }
        api.get("rooms/:room/state") { request, context in try await state(request, context) }
        api.post("rooms/:room/operations") { request, context in try await submit(request, context) }
        for format in [ModelFormat.usdz, .glb] {
            api.get("rooms/:room/model.\(format.rawValue)") { request, context in try await model(request, context, format: format) }
        }
    }

    /// Someone who reads without an account or guest key reads as an anonymous guest.
    static let anonymous = Participant(id: "anonymous", isGuest: true)

    func list(_ request: Request, _ context: ServerContext) async throws -> Response {
        let actor = try context.checkedIdentity().participant
        let offset = try wholeNumber(request, "offset", in: 0...Int.max, default: 0)
        let limit = try wholeNumber(request, "limit", in: 1...500, default: 100)
        let (rooms, total) = try await accounts.rooms.list(for: actor, offset: offset, limit: limit) { $0.mayRead(actor ?? Self.anonymous) }
        struct List: Encodable { var rooms: [RoomJSON]; var total: Int; var offset: Int; var limit: Int }
        return try Responses.encoded(List(rooms: rooms, total: total, offset: offset, limit: limit))
    }

    struct NewRoom: Decodable {
        var name: String
        var isPublic: Bool?
        var guestsMayDraw: Bool?
        var location: GeoLocation?
        var moleculeID: String?
        var style: String?
    }

    func create(_ request: Request, _ context: ServerContext) async throws -> Response {
        let (account, _) = try context.requireAccount(request, change: true)
        let body = try await JSONBody.decode(NewRoom.self, from: request, example: #"{"name": "…", "isPublic": true}"#)
        let owned = try await accounts.rooms.settings { $0.ownerID == account.id }.count
        guard owned < limits.roomsPerAccount else {
            throw APIError(.tooManyRequests, "you own \(owned) rooms, the most an account may; reuse one of them")
        }
        let name = try AccountService.oneLine(body.name, field: "name", maximum: 100)
        if let location = body.location { try Self.check(location) }
        var placement: MoleculePlacement?
        if let id = body.moleculeID {
            guard try await service.record(id: id) != nil else { throw APIError(.notFound, "no molecule \(id.prefix(64)) in the library") }
            placement = MoleculePlacement(moleculeID: id, style: body.style ?? "cartoon")
        }
        let settings = RoomSettings(id: "r" + RandomToken.hex(), name: name, ownerID: account.id, isPublic: body.isPublic ?? false,
                                    guestsMayDraw: body.guestsMayDraw ?? false, location: body.location)
        _ = try await call { try await host.create(settings) }
        if let placement {
            _ = try await call { try await host.submit(ClientOperation(clientOpID: "room-created", operation: .setMolecule(placement)),
                                                       by: Participant(id: account.id), to: settings.id) }
        }
        let state = try await call { try await host.snapshot(of: settings.id, for: Participant(id: account.id)) }
        var response = try Responses.encoded(RoomJSON(settings, for: Participant(id: account.id), names: [account.id: account.name],
                                                      createdAt: Date(), state: state), status: .created)
        response.headers[.location] = "/api/rooms/\(settings.id)"
        return response
    }

    func detail(_ request: Request, _ context: ServerContext) async throws -> Response {
        let id = try context.parameters.require("room")
        let actor = try context.checkedIdentity().participant ?? Self.anonymous
        let settings = try await call { try await host.settings(of: id) }
        // `state=none`: the room without its content, for a page that gets the content from the
        // live socket (compressed once there); writing a big room's state here is the costly part.
        let query = request.uri.queryParameters.get("state")
        guard query == nil || query == "none" else { throw APIError(.badRequest, "state '\(query?.prefix(20) ?? "")': expected none") }
        let state = try await call { try await host.snapshot(of: id, for: actor) }
        struct Detail: Encodable { var room: RoomJSON; var state: RoomStateJSON? }
        return try Responses.encoded(Detail(room: await accounts.rooms.summary(settings, for: actor, state: state),
                                            state: query == "none" ? nil : RoomStateJSON(state)))
    }

    struct Change: Decodable, Sendable {
        /// A field of a change: left as it is (absent), cleared (`null`), or set.
        enum Field<Value: Sendable>: Sendable { case unchanged, cleared, set(Value) }
        var name: String?
        var isPublic: Bool?
        var guestsMayDraw: Bool?
        /// `"location": null` takes the room off the map.
        var location: Field<GeoLocation> = .unchanged

        enum K: String, CodingKey { case name, isPublic, guestsMayDraw, location }
        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: K.self)
            name = try c.decodeIfPresent(String.self, forKey: .name)
            isPublic = try c.decodeIfPresent(Bool.self, forKey: .isPublic)
            guestsMayDraw = try c.decodeIfPresent(Bool.self, forKey: .guestsMayDraw)
            if c.contains(.location) {
                location = try c.decodeNil(forKey: .location) ? .cleared : .set(try c.decode(GeoLocation.self, forKey: .location))
            }
        }
    }

    func change(_ request: Request, _ context: ServerContext) async throws -> Response {
        let id = try context.parameters.require("room")
        let (account, _) = try await accounts.owner(of: id, in: host, request, context)
        let body = try await JSONBody.decode(Change.self, from: request, example: #"{"guestsMayDraw": true}"#)
        let name = try body.name.map { try AccountService.oneLine($0, field: "name", maximum: 100) }
        if case .set(let location) = body.location { try Self.check(location) }
        let settings = try await call {
            try await host.modifySettings(of: id) { settings in
                if let name { settings.name = name }
                if let value = body.isPublic { settings.isPublic = value }
                if let value = body.guestsMayDraw { settings.guestsMayDraw = value }
                switch body.location {
                case .unchanged: break
                case .cleared: settings.location = nil
                case .set(let location): settings.location = location
                }
            }
        }
        return try await ownerView(settings, account)
    }

    func operations(_ request: Request, _ context: ServerContext) async throws -> Response {
        let id = try context.parameters.require("room")
        let actor = try context.checkedIdentity().participant ?? Self.anonymous
        var after: UInt64 = 0
        if let text = request.uri.queryParameters.get("after") {
            guard let value = UInt64(text) else { throw APIError(.badRequest, "after '\(text.prefix(20))': expected a whole number ≥ 0") }
            after = value
        }
        let limit = try wholeNumber(request, "limit", in: 1...5_000, default: 1_000)
        let state = try await call { try await host.snapshot(of: id, for: actor) }
        // A page's bytes are spent before it is read (at most a page), and what it did not use is given back.
        let client = try await APIRoutes.share(request, context)
        let pageKB = RoomLogReads.pageBytes >> 10
        try call { try logReads.budget.spend(client, cost: pageKB) }
        let page: (operations: [StoredRoomOperation], more: Bool)
        do {
            page = try await call {
                try await host.storedOperations(in: id, after: after, limit: limit, maxBytes: RoomLogReads.pageBytes, for: actor)
            }
        } catch {
            logReads.budget.giveBack(client, cost: pageKB)
            throw error
        }
        let bytes = page.operations.reduce(0) { $0 + $1.json.utf8.count }
        logReads.budget.giveBack(client, cost: max(0, pageKB - (bytes + 1023) / 1024))
        // The operations go as the log stores them (the JSON `LoggedOperation` encodes to).
        let last = page.operations.last.map { UInt64($0.sequence) } ?? after
        var body = #"{"more":\#(page.more),"operations":["#
        body.reserveCapacity(bytes + page.operations.count + 64)
        for (k, op) in page.operations.enumerated() {
            if k > 0 { body += "," }
            body += op.json
        }
        body += #"],"sequence":\#(max(state.sequence, last))}"#
        return Responses.json(body)
    }

    /// The room as it was after operation `at` (history), or now without `at`. Rebuilding replays
    /// the log, so it takes the client's fair share of the CPU like a model does.
    func state(_ request: Request, _ context: ServerContext) async throws -> Response {
        let id = try context.parameters.require("room")
        let actor = try context.checkedIdentity().participant ?? Self.anonymous
        var at: UInt64?
        if let text = request.uri.queryParameters.get("at") {
            guard let value = UInt64(text) else { throw APIError(.badRequest, "at '\(text.prefix(20))': expected a whole number ≥ 0") }
            at = value
        }
        let state: RoomState
        if let at {
            let client = try await APIRoutes.share(request, context)
            state = try await call {
                try await fairShare.run(client) {
                    try await logReads.replays.withSlot { try await host.state(of: id, at: at, for: actor) }
                }
            }
        } else {
            state = try await call { try await host.snapshot(of: id, for: actor) }
        }
        var response = try Responses.encoded(RoomStateJSON(state))
        // A past state never changes; the present one does with every operation.
        response.headers[.cacheControl] = at == nil ? "private, no-cache" : "private, max-age=3600"
        return response
    }

    func submit(_ request: Request, _ context: ServerContext) async throws -> Response {
        let id = try context.parameters.require("room")
        let identity = try context.identityForChange(request)
        guard let actor = identity.participant else { throw APIError(.unauthorized, "sign in, or send a guest key (X-Guest-Key)") }
        let op = try await JSONBody.decode(ClientOperation.self, from: request, example: #"{"clientOpID": "…", "operation": {"type": "add-stroke", …}}"#)
        let client = try await APIRoutes.client(request, context)
        try call { try operationPoints.take(client, cost: Double(max(1, op.operation.pointCount)), what: "points of room operations") }
        let outcome = try await call { try await host.submit(op, by: actor, to: id) }
        return try Responses.encoded(Ack(outcome, clientOpID: op.clientOpID))
    }

    /// The room as it is now, as an AR model: strokes as tubes, with its molecule.
    func model(_ request: Request, _ context: ServerContext, format: ModelFormat) async throws -> Response {
        let id = try context.parameters.require("room")
        let actor = try context.checkedIdentity().participant ?? Self.anonymous
        let state = try await call { try await host.snapshot(of: id, for: actor) }
        let key = try await call { try await service.roomModelKey(of: state, format: format) }
        var response: Response
        if let match = request.headers[.ifNoneMatch], match == "\"\(key)\"" {
            response = Response(status: .notModified, headers: [.eTag: "\"\(key)\""])
        } else if let hot = service.hot.get(key) {
            // Cached by its key, which changes with every stroke: the same room state is built once.
            response = Responses.bytes(hot.buffer, type: hot.mediaType, etag: key, request: request, head: false,
                                       disposition: "inline; filename=\"room.\(format.rawValue)\"")
        } else {
            let built = try await fairShare.work(for: request, context) {
                try await service.roomModel(of: state, format: format, admission: $0)
            }
            let entry = service.hot.put(CachedModel(key: built.key, moleculeID: "room", mediaType: built.mediaType, bytes: built.bytes))
            response = Responses.bytes(entry.buffer, type: built.mediaType, etag: built.key, request: request, head: false,
                                       disposition: "inline; filename=\"room.\(format.rawValue)\"")
        }
        // A room changes with every stroke, and may be private: ask again each time (the ETag makes it cheap).
        response.headers[.cacheControl] = "private, no-cache"
        return response
    }

    private func ownerView(_ settings: RoomSettings, _ account: StoredAccount) async throws -> Response {
        try Responses.encoded(await accounts.rooms.summary(settings, for: Participant(id: account.id)))
    }

    static func check(_ location: GeoLocation) throws {
        guard location.isValid else {
            throw APIError(.badRequest, "location: latitude −90…90 and longitude −180…180")
        }
    }
}

extension AccountRoutes {
    /// The signed-in owner of the room, and its settings (a change needs the CSRF token when signed
    /// in by cookie).
    func owner(of id: String, in host: RoomHost, _ request: Request, _ context: ServerContext, change: Bool = true) async throws -> (StoredAccount, RoomSettings) {
        let (account, _) = try context.requireAccount(request, change: change)
        let settings = try await call { try await host.settings(of: id) }
        guard settings.ownerID == account.id else { throw APIError(.forbidden, "only the room's owner may change it") }
        return (account, settings)
    }
}

/// What the sender of an operation is told once it is stored.
struct Ack: Encodable {
    var type = "ack"
    var clientOpID: String
    var sequence: UInt64
    var duplicate: Bool
    init(_ outcome: RoomState.Outcome, clientOpID: String) {
        self.clientOpID = clientOpID
        switch outcome {
        case .accepted(let logged): sequence = logged.sequence; duplicate = false
        case .duplicate(let seq): sequence = seq; duplicate = true
        }
    }

    /// The same JSON as the encoder writes (sorted keys), without an encoder: one is sent for
    /// every operation. The id needs no escaping: the room accepted it, so it is letters, digits,
    /// '-' and '_'.
    var text: String {
        #"{"clientOpID":"\#(clientOpID)","duplicate":\#(duplicate),"sequence":\#(sequence),"type":"ack"}"#
    }
}
