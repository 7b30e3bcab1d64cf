import Foundation
import Hummingbird
import MoleculeLibrary
import Rooms

/// Building responses: JSON, files with validators, server-sent events.
enum Responses {
    static func json(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        var buffer = ByteBuffer()
        buffer.writeString(text)
        return Response(status: status, headers: [.contentType: "application/json; charset=utf-8"], body: .init(byteBuffer: buffer))
    }

    /// A Codable value as JSON; private data is never cached.
    static func encoded(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        var response = json(String(decoding: try RoomWire.encoder.encode(value), as: UTF8.self), status: status)
        response.headers[.cacheControl] = "no-store"
        return response
    }

    /// A file with a strong ETag: `If-None-Match` gives 304, HEAD gives the headers alone.
    /// `negotiated`: the same URL answers progress events to `Accept: text/event-stream`, so caches
    /// must keep the two apart (a browser otherwise hands the cached model to the progress request).
    static func bytes(_ bytes: ByteBuffer, type: String, etag: String, request: Request, head: Bool, disposition: String?,
                      negotiated: Bool = false) -> Response {
        let tag = "\"\(etag)\""
        var headers: HTTPFields = [.contentType: type, .eTag: tag, .cacheControl: "public, max-age=3600"]
        if negotiated { headers[.vary] = "Accept" }
        if let disposition { headers[.contentDisposition] = disposition }
        if let match = request.headers[.ifNoneMatch],
           match == "*" || match.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == tag }) {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentLength] = String(bytes.readableBytes)
        if head { return Response(status: .ok, headers: headers, body: ResponseBody()) }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: bytes))
    }

    static func wantsEventStream(_ request: Request) -> Bool {
        request.headers[.accept]?.contains("text/event-stream") == true
    }

    /// Runs `work`, sending each progress report as an SSE `progress` event, then `done` with the
    /// JSON `work` returns, or `error` with the status and message it would have had.
    static func eventStream(_ work: @escaping @Sendable (@escaping ProgressHandler) async throws -> String) -> Response {
        let headers: HTTPFields = [.contentType: "text/event-stream", .cacheControl: "no-store", .vary: "Accept"]
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            let (events, sink) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(64))
            let task = Task {
                do {
                    let result = try await work { p in
                        let data = (try? JSONEncoder().encode(p)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
                        sink.yield("event: progress\ndata: \(data)\n\n")
                    }
                    sink.yield("event: done\ndata: \(result)\n\n")
                } catch {
                    let e = APIError.from(error)
                    var fields: [(String, JSONText.Value)] = [("error", .string(e.message)), ("status", .int(Int(e.status.code)))]
                    if let seconds = e.retryAfter { fields.append(("retryAfter", .int(seconds))) }
                    sink.yield("event: error\ndata: " + JSONText.render(.object(fields)) + "\n\n")
                }
                sink.finish()
            }
            defer { task.cancel() }
            for await event in events {
                try await writer.write(ByteBuffer(string: event))
            }
            try await writer.finish(nil)
        })
    }
}
