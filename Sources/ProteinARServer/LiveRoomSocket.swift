import Accounts
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import LiveRooms
import NIOCore
import RoomHost
import Rooms
import Storage

/// The live room: a WebSocket per participant. The server numbers every operation, stores it, and
/// only then acknowledges and broadcasts it; each client gets every operation once, in order.
struct LiveRoomSocket: Sendable {
    let host: RoomHost
    let accounts: AccountRoutes
    let presence: RoomPresence
    let settingsFeed: RoomSettingsFeed
    let sockets: SocketCounter
    /// For the client's address behind a trusted proxy (sockets per address).
    let proxies: TrustedProxies
    let snapshots = CompactSnapshotCache()

    static let maximumMessageBytes = 64 << 10
    /// The socket's own frame limit; messages between this and `maximumMessageBytes` get an error
    /// and the connection stays, larger ones close it.
    static let maximumFrameBytes = 1 << 20
    /// A client further behind than this gets a snapshot instead of the log.
    static let longestResume: UInt64 = 2_000
    /// Most bytes of operations one connection is sent at once to catch up; a reader further
    /// behind is let go, to come back for a snapshot.
    static let longestCatchUpBytes = 8 << 20
    /// A joiner asking for a deflated snapshot gets the one kept from before and the operations
    /// since it, when there are at most this many (about a second of a class drawing); else the
    /// room is written and compressed again at its state now.
    static let longestTail: UInt64 = 600
    /// How long a busy connection waits to send several operations in one frame: at pen rate in
    /// a room of 20, a frame carries a dozen operations instead of two or three. At the target
    /// load (10 rooms × 20 at 33 ms) 16 ms gave a lower p50 and p99 than 12 ms (12.7 / 37 ms
    /// against 15.6 / 58 ms): fewer frames left the server more CPU for the operations.
    static let gatherMilliseconds = 16
    /// Messages of one connection waiting to be handled, at most (about half a second of drawing).
    static let queuedMessages = 16
    /// Operations of one connection handed to the room and waiting to be stored, at most.
    static let operationsInFlight = 32

    /// Whether an upgrade request is for a room's live socket (`GET /api/rooms/{id}/live`), and the
    /// handler that serves it. Every such request is upgraded: a browser cannot read why a
    /// handshake was refused, so refusals come as an `error` message, then the socket closes.
    /// Served without Hummingbird's WebSocket router, whose handler reference and request context
    /// hold each other, so that every closed socket's context (870 bytes, heaptrack:
    /// benchmark-closed-sockets.py) stayed for the life of the process.
    func shouldUpgrade(_ head: HTTPRequest, channel: any Channel) async -> ShouldUpgradeResult<WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>> {
        guard head.method == .get, let id = Self.roomID(in: head.path ?? "") else { return .dontUpgrade }
        let request = Request(head: head, body: .init(buffer: .init()))
        let peer = channel.remoteAddress?.ipAddress ?? "unknown"
        let admission: Result<(Identity, UInt64?, SnapshotForm), any Error>
        do {
            admission = .success(try await admit(request))
        } catch {
            admission = .failure(error)
        }
        return .upgrade([:]) { inbound, outbound, _ in
            let identity: Identity, after: UInt64?, form: SnapshotForm
            do {
                (identity, after, form) = try admission.get()
            } catch {
                let refusal = APIError.from(error)
                let code = refusal.status == .badRequest ? "malformed" : refusal.status == .notFound ? "not-found" : "forbidden"
                try? await LiveConnection.send(LiveConnection.ErrorMessage(code: code, message: refusal.message), on: outbound)
                try await outbound.close(.policyViolation, reason: nil)
                return
            }
            let address = proxies.clientAddress(peer: peer, headers: request.headers)
            if let (code, message) = sockets.admit(room: id, address: address) {
                try? await LiveConnection.send(LiveConnection.ErrorMessage(code: code, message: message), on: outbound)
                try await outbound.close(.policyViolation, reason: nil)
                return
            }
            defer { sockets.release(room: id, address: address) }
            let connection = LiveConnection(roomID: id, identity: identity, host: host, rooms: accounts.rooms, presence: presence,
                                            settingsFeed: settingsFeed, outbound: outbound)
            await connection.run(inbound: inbound, after: after, form: form, snapshots: snapshots)
            try? await outbound.close(.normalClosure, reason: nil)
        }
    }

    /// The room id of a live socket's path (`/api/rooms/{id}/live`, any query after it); nil for other paths.
    static func roomID(in path: String) -> String? {
        let parts = path.prefix { $0 != "?" }.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 5, parts[0].isEmpty, parts[1] == "api", parts[2] == "rooms", !parts[3].isEmpty, parts[4] == "live" else { return nil }
        return String(parts[3])
    }

    /// Who connects to which room, resuming after which sequence, and in which form a snapshot comes.
    /// A `token=` is refused before the session is looked up.
    private func admit(_ request: Request) async throws -> (Identity, UInt64?, SnapshotForm) {
        let query = request.uri.queryParameters
        // A token in the address would end up in logs and histories: it is refused, not ignored.
        guard query.get("token") == nil else {
            throw APIError(.badRequest, "token: a session token is not read from the address; send it as the header Authorization: Bearer <token>")
        }
        let sent = try await accounts.service.identify(request, guestKeyInQuery: true)
        let identity = try call { try sent.checked() }
        if identity.viaCookie, let origin = request.headers[.origin] {
            // Another site's page could open a socket with our cookie: only our own pages may.
            let url = URL(string: origin)
            let originHost = url?.host.map { host in url?.port.map { "\(host):\($0)" } ?? host }
            guard let originHost, originHost == request.head.authority else {
                throw APIError(.forbidden, "the page's origin \(origin.prefix(80)) is not this server")
            }
        }
        var after: UInt64?
        if let text = query.get("after") {
            guard let value = UInt64(text) else { throw APIError(.badRequest, "after '\(text.prefix(20))': expected a whole number ≥ 0") }
            after = value
        }
        var form = SnapshotForm.json
        if let text = query.get("snapshot") {
            guard let asked = SnapshotForm(rawValue: text) else {
                throw APIError(.badRequest, "snapshot '\(text.prefix(20))': expected json, compact or deflated")
            }
            form = asked
        }
        return (identity, after, form)
    }
}

/// The form a joiner's whole state comes in (`snapshot=` on the live socket, docs/rooms-protocol.md):
/// plain JSON in the welcome (`json`, the default), the compact form in the welcome (`compact`), or
/// the compact form deflated once by the server and sent as a binary frame right after the welcome
/// (`deflated`), followed by the operations since it.
enum SnapshotForm: String, Sendable {
    case json, compact, deflated
}

/// One participant's socket.
final class LiveConnection: Sendable {
    let roomID: String
    let identity: Identity
    let actor: Participant
    let host: RoomHost
    /// How the welcome describes the room.
    let rooms: RoomSummaries
    let presence: RoomPresence
    let settingsFeed: RoomSettingsFeed
    let outbound: WebSocketOutboundWriter
    let id = RandomToken.hex(bytes: 6)

    init(roomID: String, identity: Identity, host: RoomHost, rooms: RoomSummaries, presence: RoomPresence, settingsFeed: RoomSettingsFeed,
         outbound: WebSocketOutboundWriter) {
        self.roomID = roomID; self.identity = identity; self.host = host; self.rooms = rooms; self.presence = presence
        self.settingsFeed = settingsFeed; self.outbound = outbound
        actor = identity.participant ?? RoomRoutes.anonymous
    }

    /// `form`: how the whole state is sent when it is (`snapshots` keeps the compact forms).
    func run(inbound: WebSocketInboundStream, after requested: UInt64?, form: SnapshotForm, snapshots: CompactSnapshotCache) async {
        // Before the subscription, so that no change falls between the welcome and the feed.
        let settingsChanges = await settingsFeed.listen(roomID, connection: id)
        do {
            let kept = requested == nil && form == .deflated ? snapshots.keptDeflated(for: roomID) : nil
            let subscription = try await host.subscribe(to: roomID, for: actor, after: requested ?? kept?.sequence,
                                                        longestBacklog: requested != nil ? LiveRoomSocket.longestResume : LiveRoomSocket.longestTail)
            let snapshot = subscription.snapshot, settings = subscription.settings
            // Resume from the log only for a short gap the room has reached; otherwise (a client from
            // the future, or one far behind) a snapshot is both correct and cheaper. A log folded
            // into the room's history base no longer holds what this client missed: the whole
            // state then, which is exact too.
            var after = requested
            if let a = after, a > snapshot.sequence || !Self.backlog(subscription.backlog, follows: a, upTo: snapshot.sequence) { after = nil }
            let role = settings.role(of: actor)
            let you = yourPart(in: settings)
            let room = await rooms.summary(settings, for: actor, state: snapshot)
            // Where the operations sent before the live feed start: after the resumed sequence, or
            // after the snapshot sent.
            var last = after ?? snapshot.sequence
            if after == nil {
                switch form {
                case .deflated:
                    // The kept one and the operations since, when they follow it here; else one of the room now.
                    var base = kept
                    if let k = base?.sequence, k > snapshot.sequence || !Self.backlog(subscription.backlog, follows: k, upTo: snapshot.sequence) { base = nil }
                    let frame: CompactSnapshotCache.Deflated
                    if let base { frame = base } else { frame = try await snapshots.deflated(for: roomID, snapshot) }
                    let described = Welcome.SnapshotFrame(sequence: frame.sequence, bytes: frame.bytes.readableBytes, textBytes: frame.textBytes)
                    try await send(Welcome(room: room, you: you, sequence: snapshot.sequence, snapshot: nil, snapshotFrame: described))
                    try await outbound.writeBinaryMessage(frame.bytes)
                    last = frame.sequence
                case .compact:
                    // The compact snapshot is written as text: put it where the encoder wrote null.
                    let welcome = try Self.text(Welcome(room: room, you: you, sequence: snapshot.sequence, snapshot: nil))
                    let compact = try snapshots.text(for: roomID, snapshot)
                    guard let slot = welcome.range(of: #""snapshot":null"#) else { throw RoomError(.invalid, "the snapshot could not be written") }
                    try await outbound.write(.text(welcome.replacingCharacters(in: slot, with: #""snapshot":"# + compact)))
                case .json:
                    try await send(Welcome(room: room, you: you, sequence: snapshot.sequence, snapshot: RoomStateJSON(snapshot)))
                }
            } else {
                try await send(Welcome(room: room, you: you, sequence: snapshot.sequence, snapshot: nil))
            }
            if last < snapshot.sequence {
                try await write(subscription.backlog.filter { $0.sequence > last }.map { try Self.text(OpMessage($0)) })
                last = snapshot.sequence
            }
            // Anonymous watchers are counted, not listed, and get no presence.
            var peers: AsyncStream<String>?
            if identity.participant == nil {
                await presence.watch(roomID)
            } else {
                let peer = RoomPresence.Peer(connection: id, id: you.id ?? "anonymous", name: identity.displayName, role: role?.rawValue ?? "guest")
                peers = await presence.join(roomID, peer)
            }
            defer { if identity.participant == nil { Task { await presence.unwatch(roomID) } } }
            // Whichever ends first (the client leaves, the room lets this reader go, a write fails)
            // ends the connection: no half-open socket that takes operations but shows none.
            try await withThrowingTaskGroup(of: Void.self) { group in
                let sentUpTo = last
                group.addTask { try await self.forward(subscription.updates, after: sentUpTo) }
                if let peers { group.addTask { for await message in peers { try await self.outbound.write(.text(message)) } } }
                group.addTask { for await change in settingsChanges { try await self.tell(change) } }
                group.addTask { try await self.read(inbound) }
                defer { group.cancelAll() }
                _ = try await group.next()
            }
        } catch let behind as FellBehind {
            // Cheaper for both sides than the log: the client comes back for the room as it is now.
            try? await send(ErrorMessage(code: "behind", message: "this connection fell \(behind.operations) operations behind the room; "
                                         + "reconnecting brings the room as it is now"))
            try? await outbound.close(.goingAway, reason: "behind")
        } catch let error as RoomError {
            // Refused (not a member, no such room): say why, then close as a refusal.
            try? await send(ErrorMessage(code: error.kind.rawValue, message: error.message))
            try? await outbound.close(.policyViolation, reason: nil)
        } catch {
            // the socket closed
        }
        await presence.leave(roomID, connection: id)
        await settingsFeed.stop(roomID, connection: id)
    }

    /// This participant as the room's settings make them: their role, whether they may draw.
    private func yourPart(in settings: RoomSettings) -> Welcome.You {
        Welcome.You(id: identity.participant.map { $0.isGuest ? "guest:\($0.id)" : $0.id }, name: identity.displayName,
                    role: settings.role(of: actor)?.rawValue, mayDraw: identity.participant != nil && settings.mayDraw(actor))
    }

    /// The room's settings changed: the room as this participant now sees it. Someone who may no
    /// longer read it is told nothing (the host lets them go, which ends the connection).
    private func tell(_ change: RoomSettingsFeed.Change) async throws {
        guard change.settings.mayRead(actor) else { return }
        var room = change.room
        room.role = change.settings.role(of: actor)?.rawValue
        room.mayDraw = change.settings.mayDraw(actor)
        try await send(SettingsMessage(room: room, you: yourPart(in: change.settings)))
    }

    /// A reader this far behind is let go (`behind`) rather than caught up: its reconnect gets the
    /// room as it is now, once, instead of every operation it missed (attack 23).
    struct FellBehind: Error {
        let operations: UInt64
    }

    /// Accepted operations, in order, each once; a short gap (a slow reader whose mailbox
    /// overflowed) is filled from the log. A reader more than `longestResume` operations behind
    /// the mailbox, or with more than `longestCatchUpBytes` waiting, is let go (`FellBehind`).
    /// What waited together goes in one `ops` message (at most about 256 KiB), so a busy room
    /// costs a connection a few writes, not one per operation.
    private func forward(_ updates: RoomMailbox, after: UInt64) async throws {
        var last = after
        var lastWrite = ContinuousClock.now
        while var batch = await updates.nextBatch() {
            // A busy room (a write less than 20 ms ago): gather a few milliseconds more, so one
            // frame carries several operations; a quiet room sends at once.
            if ContinuousClock.now - lastWrite < .milliseconds(20) {
                try? await Task.sleep(for: .milliseconds(LiveRoomSocket.gatherMilliseconds))
                if let more = updates.nextBatchIfAny() { batch += more }
            }
            var parts: [String] = []
            var bytes = 0
            for update in batch where update.sequence > last {
                if update.sequence > last + 1 {
                    guard update.sequence - last - 1 <= LiveRoomSocket.longestResume else {
                        throw FellBehind(operations: (batch.last?.sequence ?? update.sequence) - last)
                    }
                    let missing = try await host.operations(in: roomID, after: last, limit: Int(clamping: update.sequence - last - 1), for: actor)
                    for missed in missing where missed.sequence < update.sequence { parts.append(try Self.text(OpMessage(missed))) }
                }
                if let message = update.message {
                    // Made once by the host for every subscriber: the stored JSON with the type in front.
                    parts.append(message)
                } else {
                    parts.append(try Self.text(OpMessage(update.operation)))
                }
                bytes += parts[parts.count - 1].utf8.count
                guard bytes <= LiveRoomSocket.longestCatchUpBytes else {
                    throw FellBehind(operations: (batch.last?.sequence ?? update.sequence) - last)
                }
                last = update.sequence
            }
            try await write(parts)
            lastWrite = ContinuousClock.now
        }
    }

    /// `op` messages in as few frames as fit: one alone as it is, several in `ops` messages of at
    /// most about 256 KiB.
    private func write(_ parts: [String]) async throws {
        var start = 0
        while start < parts.count {
            var end = start, bytes = 0
            while end < parts.count, end == start || bytes + parts[end].utf8.count < 256 << 10 { bytes += parts[end].utf8.count; end += 1 }
            let text = end - start == 1 ? parts[start] : "{\"type\":\"ops\",\"ops\":[" + parts[start..<end].joined(separator: ",") + "]}"
            try await outbound.write(.text(text))
            start = end
        }
    }

    /// Whether `backlog` holds every operation after `sequence` up to `upTo`, in order.
    static func backlog(_ backlog: [LoggedOperation], follows sequence: UInt64, upTo: UInt64) -> Bool {
        sequence == upTo || (sequence < upTo && backlog.first?.sequence == sequence + 1 && backlog.count == Int(upTo - sequence))
    }

    static func text(_ value: some Encodable) throws -> String {
        String(decoding: try RoomWire.encoder.encode(value), as: UTF8.self)
    }

    /// Reads without waiting for earlier messages to be stored, so the socket keeps answering pings
    /// while the server is busy; the messages wait in a short queue, handled in order. When the
    /// server falls this far behind, further messages are refused at once (`rate-limited`): memory
    /// and waiting stay bounded, and the client knows to send again.
    private func read(_ inbound: WebSocketInboundStream) async throws {
        let (queue, enqueue) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingOldest(LiveRoomSocket.queuedMessages))
        // Operations handed to the room and not yet stored, answered in order by their own task,
        // so the next message is handled while these are stored (group commit needs several in
        // flight). When this many wait, the handler answers the next one itself before going on.
        let (answers, answer) = AsyncStream<(SubmissionTicket, String)>.makeStream(
            bufferingPolicy: .bufferingOldest(LiveRoomSocket.operationsInFlight))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await text in queue { await self.handle(text, answer: answer) }
                answer.finish()
            }
            group.addTask {
                for await (ticket, opID) in answers { await self.acknowledge(ticket, clientOpID: opID) }
            }
            defer { enqueue.finish() }
            try await self.receive(inbound) { text in
                if case .dropped = enqueue.yield(text) {
                    let opID = Incoming.clientOpID(in: text)
                    try await self.send(ErrorMessage(code: "rate-limited", message: "the server is busy; send this operation again in a moment", clientOpID: opID))
                }
            }
            enqueue.finish()
            try await group.waitForAll()
        }
    }

    private func receive(_ inbound: WebSocketInboundStream, _ accept: (String) async throws -> Void) async throws {
        var bucket = TokenBucket(rate: 60, burst: 120)  // messages a second, on average and at once
        var refusals = 0
        for try await message in inbound.messages(maxSize: LiveRoomSocket.maximumFrameBytes) {
            let text: String?, bytes: Int
            switch message {
            case .text(let t): text = t; bytes = t.utf8.count
            case .binary(let b): text = nil; bytes = b.readableBytes
            }
            // Every message is charged before any work, by its size (a token per 4 KiB): large
            // and binary ones do not skip the limit, and those refused outright count fifty times
            // toward closing the socket.
            let misfit = text == nil || bytes > LiveRoomSocket.maximumMessageBytes
            let allowed = bucket.take(Double(max(1, bytes >> 12))) == nil
            if !allowed || misfit {
                refusals += misfit ? 50 : 1
                if refusals > 1_000 { try await outbound.close(.policyViolation, reason: "too many refused messages"); return }
            }
            guard allowed else {
                try await send(ErrorMessage(code: "rate-limited", message: "more than 60 messages a second; send this operation again later",
                                            clientOpID: misfit ? nil : text.flatMap(Incoming.clientOpID(in:))))
                continue
            }
            guard let text else {
                try await send(ErrorMessage(code: "malformed", message: "send JSON text messages, not binary")); continue
            }
            guard bytes <= LiveRoomSocket.maximumMessageBytes else {
                try await send(ErrorMessage(code: "too-large", message: "a message is at most \(LiveRoomSocket.maximumMessageBytes / 1024) KiB; send long strokes in several extend-stroke messages"))
                continue
            }
            try await accept(text)
        }
    }

    private func handle(_ text: String, answer: AsyncStream<(SubmissionTicket, String)>.Continuation) async {
        let incoming: Incoming
        do { incoming = try JSONDecoder().decode(Incoming.self, from: Data(text.utf8)) } catch {
            try? await send(ErrorMessage(code: "malformed", message: RoomJSONErrors.describe(error), clientOpID: Incoming.clientOpID(in: text)))
            return
        }
        switch incoming.type {
        case "op":
            guard identity.participant != nil else {
                try? await send(ErrorMessage(code: "forbidden", message: "to draw, sign in or join with a guest key (?guest=…)", clientOpID: incoming.clientOpID))
                return
            }
            guard let opID = incoming.clientOpID, let operation = incoming.operation else {
                try? await send(ErrorMessage(code: "malformed", message: "an op message has clientOpID and operation", clientOpID: incoming.clientOpID))
                return
            }
            do {
                let ticket = try await host.enqueue(ClientOperation(clientOpID: opID, operation: operation), by: actor, to: roomID)
                if case .dropped = answer.yield((ticket, opID)) { await acknowledge(ticket, clientOpID: opID) }
            } catch let error as RoomError {
                try? await send(ErrorMessage(code: error.kind.rawValue, message: error.message, clientOpID: opID))
            } catch {
                try? await send(ErrorMessage(code: "invalid", message: "the operation could not be stored; send it again", clientOpID: opID))
            }
        case "presence":
            guard let view = incoming.view, view.isValid else {
                try? await send(ErrorMessage(code: "malformed", message: "presence: view {position: [x,y,z], target: [x,y,z]} of finite numbers"))
                return
            }
            await presence.update(roomID, connection: id, view: view)
        default:
            try? await send(ErrorMessage(code: "malformed", message: "unknown message type '\(incoming.type.prefix(40))'; accepted: op, presence"))
        }
    }

    /// Tells the sender what became of its operation once its batch is stored.
    private func acknowledge(_ ticket: SubmissionTicket, clientOpID opID: String) async {
        do {
            let outcome = try await ticket.outcome()
            try? await outbound.write(.text(Ack(outcome, clientOpID: opID).text))
        } catch let error as RoomError {
            try? await send(ErrorMessage(code: error.kind.rawValue, message: error.message, clientOpID: opID))
        } catch {
            try? await send(ErrorMessage(code: "invalid", message: "the operation could not be stored; send it again", clientOpID: opID))
        }
    }

    private func send(_ value: some Encodable) async throws {
        try await Self.send(value, on: outbound)
    }

    static func send(_ value: some Encodable, on outbound: WebSocketOutboundWriter) async throws {
        try await outbound.write(.text(String(decoding: try RoomWire.encoder.encode(value), as: UTF8.self)))
    }
}
