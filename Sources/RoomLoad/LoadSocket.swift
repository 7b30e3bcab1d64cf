import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

/// A load client's WebSocket as plain NIO handlers on the generator's one event-loop thread: frames
/// are read where they arrive and points are written from the same thread, so a client costs no
/// task switch per frame (with an async client every frame woke a task on another thread, and the
/// generator spent a third of the machine doing so).
enum LoadSocket {
    /// Opens the socket at `path` (with its query) on `host:port`, sending `headers` with the
    /// handshake; `client` records what comes back.
    static func connect(host: String, port: Int, path: String, headers: [(String, String)], client: LoadClient,
                        on group: MultiThreadedEventLoopGroup) -> EventLoopFuture<Channel> {
        let upgrader = NIOWebSocketClientUpgrader(maxFrameSize: 1 << 26, automaticErrorHandling: false) { channel, _ in
            // Added at once (no hop): the welcome's bytes may have come with the handshake's answer.
            channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(FrameReader(client: client)) }
        }
        return ClientBootstrap(group: group)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.pipeline.addHTTPClientHandlers(withClientUpgrade: (upgraders: [upgrader], completionHandler: { _ in })).flatMap {
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(
                            UpgradeRequest(host: "\(host):\(port)", path: path, headers: headers, client: client), name: UpgradeRequest.name)
                    }
                }
            }
            .connect(host: host, port: port)
    }

    /// A text frame from the client: masked, as the protocol asks of clients (the key need not be
    /// unpredictable here, so it costs no system call for randomness).
    static func textFrame(_ text: String, allocator: ByteBufferAllocator, key: UInt32) -> WebSocketFrame {
        var buffer = allocator.buffer(capacity: text.utf8.count)
        buffer.writeString(text)
        return WebSocketFrame(fin: true, opcode: .text, maskKey: maskingKey(key), data: buffer)
    }

    static func closeFrame(allocator: ByteBufferAllocator) -> WebSocketFrame {
        var buffer = allocator.buffer(capacity: 2)
        buffer.write(webSocketErrorCode: .normalClosure)
        return WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: maskingKey(0x5EED_F00D), data: buffer)
    }

    private static func maskingKey(_ key: UInt32) -> WebSocketMaskingKey {
        WebSocketMaskingKey([UInt8(truncatingIfNeeded: key >> 24), UInt8(truncatingIfNeeded: key >> 16),
                             UInt8(truncatingIfNeeded: key >> 8), UInt8(truncatingIfNeeded: key)]) ?? .random()
    }
}

/// Sends the handshake once connected; a refused one (any answer but 101, an error from the
/// upgrade handler) is recorded as a drop.
private final class UpgradeRequest: ChannelInboundHandler, RemovableChannelHandler {
    static let name = "upgrade-request"
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart
    let host: String, path: String, headers: [(String, String)], client: LoadClient

    init(host: String, path: String, headers: [(String, String)], client: LoadClient) {
        self.host = host; self.path = path; self.headers = headers; self.client = client
    }

    func channelActive(context: ChannelHandlerContext) {
        var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: path)
        head.headers.add(name: "Host", value: host)
        head.headers.add(name: "Content-Length", value: "0")
        for (name, value) in headers { head.headers.add(name: name, value: value) }
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        context.fireChannelActive()
    }

    // No channelRead: what comes in passes on untouched (it stays in the pipeline, before the
    // frame codec the upgrade adds). A refused handshake arrives as an error.

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        client.dropped("connect: \(error)".prefix(120).description, at: nil)
        context.close(promise: nil)
    }
}

/// Reads the server's frames: text goes to the client's record where it lies; a ping is answered.
private final class FrameReader: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame
    let client: LoadClient
    private var continued: ByteBuffer?

    init(client: LoadClient) { self.client = client }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .text, .continuation:
            var data = frame.unmaskedData
            if var pending = continued {
                pending.writeBuffer(&data)
                guard frame.fin else { continued = pending; return }
                data = pending
                continued = nil
            } else if !frame.fin {
                continued = data
                return
            }
            let now = Clock.seconds()
            data.withUnsafeReadableBytes { client.receive($0.bindMemory(to: UInt8.self), now: now) }
        case .ping:
            context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, maskKey: .random(), data: frame.unmaskedData)),
                                  promise: nil)
        case .connectionClose:
            context.close(promise: nil)
        default:
            break
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        client.socketClosed()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        client.dropped("receive: \(type(of: error))", at: nil)
        context.close(promise: nil)
    }
}
