import Accounts
import Hummingbird
import HummingbirdAuth
import HummingbirdWebSocket
import NIOCore

/// The request context of every route: Hummingbird's basics plus the connection, for the client's
/// address (fair shares are per client) and for noticing that the client has gone, and who sent
/// the request (`IdentityMiddleware`).
struct ServerContext: AuthRequestContext {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel
    var identity: Identity?
    /// The anonymous client id of the request's cookie (or handed out with its answer), for
    /// people without an account (`AnonymousClientMiddleware`).
    var anonymousClient: String?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }

    /// The client's address as a trusted proxy forwarded it (`ForwardedAddressMiddleware`).
    var forwardedFor: String?

    /// The client's IP address: forwarded by a trusted proxy, else the connection's ("unknown"
    /// when the socket has none, as on a Unix socket).
    var clientAddress: String { forwardedFor ?? peerAddress }

    /// The address of the connection's other end (a proxy's, behind one).
    var peerAddress: String { channel.remoteAddress?.ipAddress ?? "unknown" }
}

/// Runs `work` for as long as the client is connected: when the connection closes first (the
/// client gave up), the work is cancelled, so a conversion nobody waits for is dropped from the
/// queue instead of running for no one.
func whileConnected<T: Sendable>(_ channel: any Channel, _ work: @escaping @Sendable () async throws -> T) async throws -> T {
    let task = Task { try await work() }
    channel.closeFuture.whenComplete { _ in task.cancel() }
    return try await withTaskCancellationHandler { try await task.value } onCancel: { task.cancel() }
}
