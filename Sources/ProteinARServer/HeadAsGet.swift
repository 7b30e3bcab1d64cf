import HTTPTypes
import Hummingbird

/// HEAD answers exactly as GET does, status and headers (compression, ETags, cookies and
/// Content-Length included), without the body (RFC 9110 §9.3.2). It wraps the whole router: the
/// request goes through routing and every middleware as a GET, and its body is dropped on the way
/// out, so no route, file server or compression step has a HEAD case of its own to get wrong. A
/// HEAD costs what its GET costs (a model is made, and cached, as for a GET), under the same limits.
struct HeadAsGet<Builder: HTTPResponderBuilder>: HTTPResponderBuilder where Builder.Responder.Context: RequestContext {
    let router: Builder

    func buildResponder() -> HeadAsGetResponder<Builder.Responder> { HeadAsGetResponder(inner: router.buildResponder()) }
}

struct HeadAsGetResponder<Inner: HTTPResponder>: HTTPResponder where Inner.Context: RequestContext {
    typealias Context = Inner.Context
    let inner: Inner

    func respond(to request: Request, context: Context) async throws -> Response {
        guard request.method == .head else { return try await inner.respond(to: request, context: context) }
        var head = request.head
        head.method = .get
        let asGet = Request(head: head, body: request.body)
        let response: Response
        do { response = try await inner.respond(to: asGet, context: context) } catch let error as HTTPResponseError {
            response = try error.response(from: asGet, context: context)
        }
        var headers = response.headers
        if headers[.contentLength] == nil, let length = response.body.contentLength { headers[.contentLength] = String(length) }
        return Response(status: response.status, headers: headers, body: ResponseBody())
    }
}
