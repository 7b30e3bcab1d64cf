import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// What the edge of the server allows a connection before any route sees it.
public struct EdgeLimits: Sendable {
    public var maxConnections = 512
    /// A class of 40 phones behind one school address, each browser opening up to 6 connections.
    public var connectionsPerAddress = 256
    /// A connection must send its first request head within this time.
    public var headerTimeout: TimeAmount = .seconds(10)
    /// A keep-alive connection with nothing to do is closed after this.
    public var idleTimeout: TimeAmount = .seconds(30)
    /// The first request head may be at most this long; longer gets `431`.
    public var maxHeaderBytes = 32 << 10
    /// Reverse proxies whose connections carry many clients (`--trusted-proxy`): not held to
    /// `connectionsPerAddress` (the total still holds), and their forwarded addresses are read.
    public var trustedProxies: [String] = []
    public init() {}
}

/// Open connections, in all and per client address, shared by every connection's `EdgeHandler`.
final class ConnectionCounter: Sendable {
    /// `peak` is the most open since memory was last given back (see `release`).
    private let counts = NIOLockedValueBox((total: 0, peak: 0, perAddress: [String: Int]()))
    /// Connections refused at the edge, until their channel's handling is skipped.
    private let refused = NIOLockedValueBox(Set<ObjectIdentifier>())
    let limits: EdgeLimits
    private let proxies: TrustedProxies

    init(limits: EdgeLimits) { self.limits = limits; proxies = TrustedProxies(limits.trustedProxies) }

    /// Counts the connection in, or says why not.
    func admit(_ address: String) -> String? {
        counts.withLockedValue { c in
            if c.total >= limits.maxConnections { return "the server has \(limits.maxConnections) connections open" }
            if c.perAddress[address, default: 0] >= limits.connectionsPerAddress, !proxies.trusts(address) {
                return "your address has \(limits.connectionsPerAddress) connections open"
            }
            c.total += 1
            c.peak = max(c.peak, c.total)
            c.perAddress[address, default: 0] += 1
            return nil
        }
    }

    /// Counts a connection out. When a crowd has left (at least 256 connections fewer than the
    /// peak, and half of it), the memory their buffers used is given back a second later, once the
    /// rooms and tasks they held have let go too.
    func release(_ address: String) {
        let crowdLeft = counts.withLockedValue { c in
            c.total -= 1
            c.perAddress[address] = c.perAddress[address].flatMap { $0 > 1 ? $0 - 1 : nil }
            guard c.peak - c.total >= 256, c.total <= c.peak / 2 else { return false }
            c.peak = c.total
            return true
        }
        if crowdLeft { FreedMemory.giveBackSoon() }
    }

    var open: Int { counts.withLockedValue { $0.total } }

    func markRefused(_ channel: any Channel) { _ = refused.withLockedValue { $0.insert(ObjectIdentifier(channel)) } }

    /// Whether `channel` was refused (and forgets it).
    func takeRefused(_ channel: any Channel) -> Bool { refused.withLockedValue { $0.remove(ObjectIdentifier(channel)) != nil } }
}

/// The first handler of every connection (after TLS): counts it against the connection caps,
/// closes it if no whole request head arrives in time, answers `431` to an oversized first head
/// (NIO's parser would only drop the connection) and `400` to one with control characters, and
/// closes a connection whose client has closed its side, so that work for a client who left is
/// cancelled (`whileConnected`), or that has sent no whole request when the server stops.
final class EdgeHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let counter: ConnectionCounter
    /// The client's address once counted in (released when the connection ends).
    private var address: String?
    /// Why the connection is refused, when it is.
    private let refusal: String?
    private var started = false
    private var headComplete = false
    private var headBytes = 0
    /// The last bytes read, to find "\r\n\r\n" across reads.
    private var tail: [UInt8] = []
    /// The first request's head as read so far (at most the header limit), for its framing.
    private var head: [UInt8] = []
    private var timer: Scheduled<Void>?

    init(counter: ConnectionCounter, address: String?, refusal: String?) {
        self.counter = counter; self.address = address; self.refusal = refusal
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context)
        context.fireChannelActive()
    }

    private func start(_ context: ChannelHandlerContext) {
        guard !started else { return }
        started = true
        if let refusal {
            refuse(context, status: "503 Service Unavailable", message: "\(refusal); try again shortly", extra: "Retry-After: 5\r\n")
            return
        }
        let loop = context.eventLoop
        let seconds = Int(counter.limits.headerTimeout.nanoseconds / 1_000_000_000)
        // The timer runs on the connection's own event loop; it is cancelled when the connection ends.
        let bound = NIOLoopBound((handler: self, context: context), eventLoop: loop)
        timer = loop.scheduleTask(in: counter.limits.headerTimeout) {
            let (handler, context) = bound.value
            guard !handler.headComplete else { return }
            handler.refuse(context, status: "408 Request Timeout", message: "no request head within \(seconds) s")
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        if let address { counter.release(address); self.address = nil }
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !headComplete else { return context.fireChannelRead(data) }
        let buffer = unwrapInboundIn(data)
        let bytes = tail + buffer.readableBytesView
        let end = Self.find(bytes)
        // Control bytes (NUL and the like) have no place in a request head. NIO's parser rejects
        // them, but during the WebSocket upgrade decision nobody answers and the connection would
        // hang: refuse it here, with a reason.
        if bytes[..<(end ?? bytes.count)].contains(where: { $0 < 0x20 && $0 != 9 && $0 != 10 && $0 != 13 || $0 == 0x7F }) {
            headComplete = true
            return refuse(context, status: "400 Bad Request", message: "the request head holds a control character")
        }
        if let end {
            headComplete = true
            timer?.cancel()
            if headBytes + end - tail.count > counter.limits.maxHeaderBytes { return tooLarge(context) }
            head += bytes[tail.count..<end]
            if let problem = Self.framingProblem(head) { return refuse(context, status: "400 Bad Request", message: problem) }
            head = []
        } else {
            head += bytes[tail.count...]
            headBytes += buffer.readableBytes
            if headBytes > counter.limits.maxHeaderBytes { return tooLarge(context) }
            tail = Array(bytes.suffix(3))
        }
        context.fireChannelRead(data)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // The client closed its side: nobody will read an answer.
        if case ChannelEvent.inputClosed = event { context.close(promise: nil); return }
        // The server is stopping: a connection that has not sent a whole request has nothing to finish.
        if event is ChannelShouldQuiesceEvent, !headComplete { context.close(promise: nil); return }
        context.fireUserInboundEventTriggered(event)
    }

    private func tooLarge(_ context: ChannelHandlerContext) {
        headComplete = true
        refuse(context, status: "431 Request Header Fields Too Large",
               message: "the request's headers are longer than the \(counter.limits.maxHeaderBytes >> 10) KB accepted")
    }

    /// Answers with a short JSON error straight on the socket (no route has the request yet), then closes.
    private func refuse(_ context: ChannelHandlerContext, status: String, message: String, extra: String = "") {
        timer?.cancel()
        let code = status.prefix(3)
        let body = JSONText.object(["error": .string(message), "status": .int(Int(code) ?? 400)])
        let text = "HTTP/1.1 \(status)\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: \(body.utf8.count)\r\n"
            + "Connection: close\r\n\(extra)\r\n\(body)"
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: text))).whenComplete { _ in channel.close(promise: nil) }
    }

    /// Why a request head's framing is ambiguous (RFC 9112 §6.3), or nil: both `Content-Length`
    /// and `Transfer-Encoding`, two different lengths, a length that is not a number, or a
    /// transfer coding that does not end in chunked. Such a request would leave the parser waiting
    /// and the connection open for good; it is answered 400 and closed.
    static func framingProblem(_ head: [UInt8]) -> String? {
        var lengths: Set<String> = [], encodings: [String] = []
        for line in String(decoding: head, as: UTF8.self).split(separator: "\r\n").dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            if name == "content-length" {
                for part in value.split(separator: ",", omittingEmptySubsequences: false) { lengths.insert(part.trimmingCharacters(in: .whitespaces)) }
            } else if name == "transfer-encoding" {
                encodings += value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            }
        }
        if !lengths.isEmpty, !encodings.isEmpty { return "ambiguous framing: both Content-Length and Transfer-Encoding (RFC 9112 §6.3)" }
        if lengths.count > 1 { return "ambiguous framing: Content-Length given as \(lengths.sorted().joined(separator: " and ")) (RFC 9112 §6.3)" }
        if let length = lengths.first, length.isEmpty || !length.allSatisfy(\.isASCII) || !length.allSatisfy(\.isNumber) || length.count > 18 {
            return "Content-Length '\(length.prefix(20))' is not a number of bytes"
        }
        if !encodings.isEmpty, encodings.last != "chunked" { return "Transfer-Encoding must end in chunked (RFC 9112 §6.3)" }
        return nil
    }

    /// The offset just past the first "\r\n\r\n" in `bytes`.
    static func find(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for i in 0...(bytes.count - 4) where bytes[i] == 13 && bytes[i + 1] == 10 && bytes[i + 2] == 13 && bytes[i + 3] == 10 {
            return i + 4
        }
        return nil
    }
}

/// A server child channel (HTTP with the WebSocket upgrade) with `EdgeHandler` first in line.
struct EdgeGuardedChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value
    let base: Base
    let counter: ConnectionCounter

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        // Counted in here, before `handle` can run, so that a refused connection is known to be one.
        let address = channel.remoteAddress?.ipAddress ?? "unknown"
        let refusal = counter.admit(address)
        if refusal != nil { counter.markRefused(channel) }
        do {
            try channel.pipeline.syncOperations.addHandler(EdgeHandler(counter: counter, address: refusal == nil ? address : nil, refusal: refusal))
        } catch {
            if refusal == nil { counter.release(address) }
            return channel.eventLoop.makeFailedFuture(error)
        }
        return base.setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        // A refused connection is answered and closed by its `EdgeHandler`; handling it would only
        // log the failed upgrade (an error line per refusal).
        if counter.takeRefused(value.channel) { return }
        // Cancelled (the server is stopping and its grace period is over): close the connection, so
        // that handling waiting on it (an upgrade decision that never comes) ends in time.
        let channel = value.channel
        await withTaskCancellationHandler {
            await base.handle(value: value, logger: logger)
        } onCancel: {
            channel.close(promise: nil)
        }
        // However handling ended (an upgrade that failed on a malformed head leaves the connection
        // open), the connection ends with it.
        try? await value.channel.close()
    }
}

/// Headers on every answer: our own origin only, no sniffing, no framing, little referrer; and
/// every error in the API's JSON form.
struct SecurityHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    static var policy: String {
        "default-src 'self'; img-src 'self' data: blob:; media-src 'self' blob:; style-src 'self'; connect-src 'self'; frame-ancestors 'none'; "
            + "base-uri 'self'; form-action 'self'; object-src 'none'"
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        do { response = try await next(request, context) } catch let error as HTTPResponseError {
            // Every error as the API's JSON, the router's own (no such route: 404) included.
            response = try APIError.from(error).response(from: request, context: context)
        }
        response.headers[.contentSecurityPolicy] = Self.policy
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[HTTPField.Name("Referrer-Policy")!] = "same-origin"
        response.headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        return response
    }
}

/// After the first request of a connection (which `EdgeHandler` reads first): a request the HTTP
/// parser rejects (ambiguous framing, a bad chunk size) would leave the connection waiting with
/// nobody answering, holding a place under the connection caps for good. The connection stops
/// reading and is closed two seconds later, time for an answer to a good request sent before it in
/// the same packet to be written, and for the 400 of a request whose body was malformed.
final class ParserErrorHandler: ChannelInboundHandler, RemovableChannelHandler {
    /// Parts pass through untouched (never unwrapped here), whatever their type.
    typealias InboundIn = NIOAny
    static let grace: TimeAmount = .seconds(2)
    private var closing = false

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard error is HTTPParserError else { return context.fireErrorCaught(error) }
        guard !closing else { return }
        closing = true
        let channel = context.channel
        channel.setOption(ChannelOptions.autoRead, value: false).whenComplete { _ in }
        context.eventLoop.scheduleTask(in: Self.grace) { channel.close(promise: nil) }
        // A request whose body the parser rejected hears it: its route answers 400 (`APIError`).
        context.fireErrorCaught(error)
    }
}
