import CompressNIO
import HTTPTypes
import Hummingbird
import MoleculeLibrary
import NIOConcurrencyHelpers
import NIOCore

/// gzip on the way out, for clients that accept it: JSON, scripts, styles, SVG, text and models
/// that are not compressed already (a USDZ is a zip of its own, a PNG is deflated). A phone on a
/// mobile network waits for bytes, not for our CPU: the body is compressed only when that saves
/// more than 10 %. Every answer of a compressible type says `Vary: Accept-Encoding`, and a
/// compressed one has its own ETag (`"…-gz"`), so caches never hand the gzip to a client that
/// did not ask for it; a request's `If-None-Match` of the gzip tag is matched against the plain
/// one, so the routes' 304s keep working.
struct CompressionMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The gzip of each answer with an ETag, made once (an empty entry: not worth compressing).
    let cache = HotModelCache(limitBytes: 64 << 20)

    /// Media types worth compressing (without parameters).
    static var compressible: Set<String> {
        ["application/json", "application/javascript", "text/javascript", "text/css", "text/html", "text/plain",
         "text/csv", "image/svg+xml", "application/yaml", "application/xml", "text/xml", "model/gltf-binary", "model/vnd.usdz+zip",
         "model/gltf+json", "model/obj", "model/mtl", "model/stl", "model/vnd.collada+xml", "application/x-ply",
         "application/octet-stream", "chemical/x-pdb", "chemical/x-mmcif", "chemical/x-cif", "application/manifest+json"]
    }
    /// Smaller bodies gain nothing worth a header; larger ones are not held in memory to compress.
    static var smallest: Int { 1024 }
    static var largest: Int { 32 << 20 }
    static var suffix: String { "-gz" }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let gzip = Self.acceptsGzip(request.headers[values: .acceptEncoding])
        var request = request
        if gzip, let tags = request.headers[.ifNoneMatch], tags.contains(Self.suffix + "\"") {
            var head = request.head
            head.headerFields[.ifNoneMatch] = tags.replacingOccurrences(of: Self.suffix + "\"", with: "\"")
            request = Request(head: head, body: request.body)
        }
        var response = try await next(request, context)
        guard Self.isCompressible(response.headers[.contentType]), response.headers[.contentEncoding] == nil else { return response }
        Self.addVary(&response.headers)
        guard gzip else { return response }
        if response.status == .notModified {
            Self.tagGzip(&response.headers)
            return response
        }
        guard response.status == .ok, request.method != .head, let length = response.body.contentLength,
              length >= Self.smallest, length <= Self.largest else { return response }
        // A body with a strong ETag (models, files) is compressed once: a client asking for the
        // same large model again must not cost the server another gzip of megabytes.
        let key = response.headers[.eTag].map { "\($0) \(response.headers[.contentType] ?? "")" }
        let packed: ByteBuffer
        if let key, let known = cache.get(key) {
            guard known.mediaType == "gzip" else { return response }
            packed = known.buffer
        } else {
            let made = Self.gzipped(try await Self.collect(response.body))
            if let key { cache.put(key: key, buffer: made ?? ByteBuffer(), mediaType: made == nil ? "identity" : "gzip") }
            guard let made else { return response }
            packed = made
        }
        response.body = ResponseBody(byteBuffer: packed)
        response.headers[.contentEncoding] = "gzip"
        response.headers[.contentLength] = String(packed.readableBytes)
        Self.tagGzip(&response.headers)
        return response
    }

    /// The gzip of `plain` when it is at least 10 % smaller.
    static func gzipped(_ plain: ByteBuffer) -> ByteBuffer? {
        var input = plain
        guard let packed = try? input.compress(with: .gzip()), packed.readableBytes * 10 < plain.readableBytes * 9 else { return nil }
        return packed
    }

    /// Whether an `Accept-Encoding` list names gzip (or `*`) without `q=0`.
    static func acceptsGzip(_ values: [String]) -> Bool {
        for item in values.flatMap({ $0.split(separator: ",") }) {
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard let name = parts.first, name == "gzip" || name == "x-gzip" || name == "*" else { continue }
            let q = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            if q > 0 { return true }
        }
        return false
    }

    static func isCompressible(_ contentType: String?) -> Bool {
        guard let type = contentType?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() else { return false }
        return compressible.contains(type)
    }

    static func addVary(_ headers: inout HTTPFields) {
        let vary = headers[.vary] ?? ""
        if !vary.lowercased().contains("accept-encoding") { headers[.vary] = vary.isEmpty ? "Accept-Encoding" : vary + ", Accept-Encoding" }
    }

    /// `"abc"` becomes `"abc-gz"` (and `W/"abc"` `W/"abc-gz"`): the compressed body is another representation.
    static func tagGzip(_ headers: inout HTTPFields) {
        guard let tag = headers[.eTag], tag.hasSuffix("\""), !tag.hasSuffix(suffix + "\"") else { return }
        headers[.eTag] = String(tag.dropLast()) + suffix + "\""
    }

    /// The body's bytes (bodies here are buffers or files of known, bounded length).
    static func collect(_ body: ResponseBody) async throws -> ByteBuffer {
        let collector = Collector()
        try await body.write(collector)
        return collector.bytes.buffer
    }

    private struct Collector: ResponseBodyWriter {
        final class Bytes: @unchecked Sendable { var buffer = ByteBuffer() }
        let bytes = Bytes()
        mutating func write(_ buffer: ByteBuffer) async throws {
            var part = buffer
            bytes.buffer.writeBuffer(&part)
        }
        consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
    }
}
