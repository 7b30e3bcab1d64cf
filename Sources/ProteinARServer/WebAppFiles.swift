import Foundation
import Hummingbird
import Logging
import MoleculeLibrary
import Storage

/// The web app's files with long-lived caching: `index.html` names its stylesheet and script under
/// `/v/<version>/`, where `version` is a hash of every file of the web app, and everything under
/// that prefix may be kept for a year (`immutable`). The scripts import each other by relative
/// paths, so one versioned entry point versions them all, and a server with other files has
/// another version. `index.html` itself, and the files at their plain paths, are revalidated on
/// every use (`no-cache`, answered by 304 with the ETag).
struct WebAppFiles {
    let root: String
    /// The first 12 hex digits of the SHA-256 of every file's path and bytes.
    let version: String
    let index: [UInt8]

    init(root: String) {
        self.root = root
        var all: [UInt8] = []
        let base = URL(fileURLWithPath: root)
        let paths = (FileManager.default.enumerator(atPath: root)?.allObjects as? [String] ?? []).sorted()
        for path in paths {
            guard let data = FileManager.default.contents(atPath: base.appendingPathComponent(path).path) else { continue }
            all += Array(path.utf8) + [0] + Array(data) + [0]
        }
        version = String(Hashing.sha256Hex(all).prefix(12))
        let page = FileManager.default.contents(atPath: base.appendingPathComponent("index.html").path).map { String(decoding: $0, as: UTF8.self) } ?? ""
        index = Array(page.replacingOccurrences(of: "href=\"app.css\"", with: "href=\"/v/\(version)/app.css\"")
            .replacingOccurrences(of: "src=\"js/app.js\"", with: "src=\"/v/\(version)/js/app.js\"").utf8)
    }

    var prefix: String { "/v/\(version)" }

    /// The middlewares, in order: the page, the versioned files, the plain files.
    func middlewares(logger: Logger) -> [any MiddlewareProtocol<Request, Response, ServerContext>] {
        let year = CacheControl([(MediaType(type: .any), [.public, .maxAge(31_536_000), .immutable])])
        let revalidate = CacheControl([(MediaType(type: .any), [.noCache])])
        return [IndexPage(index: index, tag: "\"index-\(version)\""),
                FileMiddleware(root, urlBasePath: prefix, cacheControl: year, searchForIndexHtml: false, logger: logger),
                FileMiddleware(root, cacheControl: revalidate, searchForIndexHtml: false, logger: logger)]
    }
}

/// `/` and `/index.html`: the page with its versioned addresses, always revalidated.
struct IndexPage: RouterMiddleware {
    typealias Context = ServerContext
    let index: [UInt8]
    let tag: String

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        guard path == "/" || path == "/index.html", request.method == .get || request.method == .head else {
            return try await next(request, context)
        }
        var headers: HTTPFields = [.contentType: "text/html; charset=utf-8", .cacheControl: "no-cache", .eTag: tag]
        if request.headers[.ifNoneMatch] == tag {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentLength] = String(index.count)
        return Response(status: .ok, headers: headers,
                        body: request.method == .head ? ResponseBody() : ResponseBody(byteBuffer: ByteBuffer(bytes: index)))
    }
}
