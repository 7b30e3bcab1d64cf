import Foundation
import Hummingbird
import NIOConcurrencyHelpers
import NIOCore

/// Request bodies must keep coming: no gap of `stall` seconds, and after the first `grace`
/// seconds at least `minimumRate` bytes a second on average. A client that sends a large
/// `Content-Length` and then a byte now and then (a slow-loris) would otherwise hold a connection
/// and a task for ever; its connection is closed instead, while the handler waits for the body.
/// An ordinary upload from a slow phone (a few kilobytes a second) is far above the bound.
struct BodyDeadlineMiddleware: RouterMiddleware {
    typealias Context = ServerContext
    var stall: TimeInterval = 10
    var grace: TimeInterval = 10
    var minimumRate: Double = 1024

    func handle(_ request: Request, context: ServerContext, next: (Request, ServerContext) async throws -> Response) async throws -> Response {
        let hasBody = request.headers[.transferEncoding] != nil || (request.headers[.contentLength].flatMap(Int.init) ?? 0) > 0
        guard hasBody else { return try await next(request, context) }
        let progress = BodyProgress()
        var request = request
        request.body = RequestBody(asyncSequence: CountedBody(base: request.body, progress: progress))
        let channel = context.channel
        let (stall, grace, minimumRate) = (stall, grace, minimumRate)
        let watchdog = Task {
            let started = Date()
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(1))
                let (bytes, last, done) = progress.now
                if done || Task.isCancelled { return }
                let elapsed = Date().timeIntervalSince(started)
                if Date().timeIntervalSince(last) > stall || (elapsed > grace && Double(bytes) / elapsed < minimumRate) {
                    channel.close(promise: nil)
                    return
                }
            }
        }
        defer { watchdog.cancel() }
        return try await next(request, context)
    }
}

/// Bytes of a request body read so far, when the last came, and whether it has ended.
final class BodyProgress: Sendable {
    private let state = NIOLockedValueBox((bytes: 0, last: Date(), done: false))
    var now: (Int, Date, Bool) { state.withLockedValue { ($0.bytes, $0.last, $0.done) } }
    func add(_ count: Int) { state.withLockedValue { $0.bytes += count; $0.last = Date() } }
    func finish() { state.withLockedValue { $0.done = true } }
}

/// A request body that reports its progress as it is read.
struct CountedBody: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let base: RequestBody
    let progress: BodyProgress

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: RequestBody.AsyncIterator
        let progress: BodyProgress
        mutating func next() async throws -> ByteBuffer? {
            guard let chunk = try await base.next() else { progress.finish(); return nil }
            progress.add(chunk.readableBytes)
            return chunk
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: base.makeAsyncIterator(), progress: progress) }
}
