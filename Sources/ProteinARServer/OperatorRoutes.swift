import Accounts
import Foundation
import Hummingbird
import MoleculeLibrary
import NIOCore

/// What the server's operator and the API's readers ask of the server itself: `/healthz` (with
/// figures behind the metrics token), `/metrics` (Prometheus) and `/api/openapi.yaml`.
struct OperatorRoutes: Sendable {
    let library: LibraryService
    let accounts: AccountService
    /// The token `/metrics` and `/healthz?detail=true` need; nil: no metrics.
    let metricsToken: String?
    let edge: ConnectionCounter

    func register(on router: Router<ServerContext>) {
        router.get("healthz") { request, _ in try await health(request) }
        router.get("metrics") { request, _ in try metrics(request) }
        router.get("api/openapi.yaml") { _, _ in try openAPIDocument() }
    }

    /// Figures about the server (where its database is, how busy it is) are for its operator.
    func mayReadMetrics(_ request: Request) -> Bool {
        guard let metricsToken, let auth = request.headers[.authorization], auth.hasPrefix("Bearer ") else { return false }
        return AccountService.same(String(auth.dropFirst(7)), metricsToken)
    }

    func health(_ request: Request) async throws -> Response {
        let count = try await library.count()
        var fields: [(String, JSONText.Value)] = [("status", .string("ok"))]
        if request.uri.queryParameters.get("detail") == "true" {
            guard mayReadMetrics(request) else { throw APIError(.unauthorized, "details need the metrics token (Authorization: Bearer …)") }
            fields += [("molecules", .int(count)), ("database", .string(library.store.location)), ("connections", .int(edge.open)),
                       ("conversionsWaiting", .int(await library.limiter.queued)), ("hotCacheBytes", .int(library.hot.totalBytes))]
            let figures = library.counters.now
            let cache = try await library.archiveCacheSize()
            fields += [("conversionsRun", .int(figures.conversionsRun)), ("archiveDownloads", .int(figures.archiveDownloads)),
                       ("archiveCacheEntries", .int(cache.entries)), ("archiveCacheBytes", .int(cache.bytes)),
                       ("sessionLookups", .int(accounts.sessionLookups.withLockedValue { $0 }))]
        }
        var response = Responses.json(JSONText.render(.object(fields)))
        response.headers[.cacheControl] = "no-store"
        return response
    }

    func metrics(_ request: Request) throws -> Response {
        guard metricsToken != nil else { throw APIError(.notFound, "metrics are off (start the server with --metrics-token)") }
        guard mayReadMetrics(request) else { throw APIError(.unauthorized, "metrics need the token given to --metrics-token (Authorization: Bearer …)") }
        var bytes: [UInt8] = []
        MetricsBootstrap.registry.emit(into: &bytes)
        return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4"], body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// Read once: the document does not change while the server runs.
    static let openAPI = Bundle.module.url(forResource: "openapi", withExtension: "yaml")
        .flatMap { try? Data(contentsOf: $0) }.map { ByteBuffer(bytes: [UInt8]($0)) }

    func openAPIDocument() throws -> Response {
        guard let openAPI = Self.openAPI else { throw APIError(.notFound, "openapi.yaml is missing") }
        return Response(status: .ok, headers: [.contentType: "application/yaml"], body: .init(byteBuffer: openAPI))
    }
}
