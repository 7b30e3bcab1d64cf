import Accounts
import Foundation
import Hummingbird
import Lessons
import ProteinDesign
import Storage
import NIOCore
import NIOHTTP1
import MoleculeLibrary
import PDBArchive
import Rooms

/// An API failure as JSON `{"error": "…", "status": N}` with the matching status code.
struct APIError: HTTPResponseError {
    let status: HTTPResponse.Status
    let message: String
    /// Seconds after which trying again may work (`Retry-After`), for 429 and 503.
    var retryAfter: Int?

    init(_ status: HTTPResponse.Status, _ message: String, retryAfter: Int? = nil) {
        self.status = status
        self.message = message
        self.retryAfter = retryAfter
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var body = ByteBuffer()
        body.writeString(JSONText.object(["error": .string(message), "status": .int(Int(status.code))]))
        var headers: HTTPFields = [.contentType: "application/json; charset=utf-8"]
        if let retryAfter { headers[.retryAfter] = String(retryAfter) }
        return Response(status: status, headers: headers, body: .init(byteBuffer: body))
    }

    /// The status and message for any error the service layer throws.
    static func from(_ error: any Error) -> APIError {
        switch error {
        case let e as APIError: return e
        case let e as LibraryError:
            switch e {
            case .notFound(let m): return APIError(.notFound, m)
            case .badRequest(let m): return APIError(.badRequest, m)
            case .unreadable(let m): return APIError(.unprocessableContent, m)
            case .archiveUnavailable(let m): return APIError(.badGateway, "the PDB archive is unavailable: \(m); try again in a minute")
            case .archiveTimedOut(let m): return APIError(.gatewayTimeout, "the PDB archive did not answer in time: \(m); try again in a minute")
            case .tooLarge(let m), .quotaExceeded(let m): return APIError(.contentTooLarge, m)
            case .libraryFull(let m): return APIError(.init(code: 507, reasonPhrase: "Insufficient Storage"), m)
            case .busy(let m, let seconds): return APIError(.serviceUnavailable, m, retryAfter: seconds)
            case .tooManyRequests(let m, let seconds): return APIError(.tooManyRequests, m, retryAfter: seconds)
            }
        case let e as AccountError:
            switch e.kind {
            case .badRequest: return APIError(.badRequest, e.message)
            case .unauthorized: return APIError(.unauthorized, e.message)
            case .forbidden: return APIError(.forbidden, e.message)
            case .conflict: return APIError(.conflict, e.message)
            case .tooManyRequests: return APIError(.tooManyRequests, e.message, retryAfter: e.retryAfter)
            }
        case let e as RequestError: return APIError(.badRequest, e.description)
        case let e as LessonError:
            switch e.kind {
            case .badRequest: return APIError(.badRequest, e.message)
            case .notFound: return APIError(.notFound, e.message)
            case .forbidden: return APIError(.forbidden, e.message)
            case .conflict: return APIError(.conflict, e.message)
            }
        case let e as DesignError: return APIError(.badRequest, e.message)
        case let e as RoomError:
            switch e.kind {
            case .forbidden: return APIError(.forbidden, e.message)
            case .invalid: return APIError(.badRequest, e.message)
            case .notFound: return APIError(.notFound, e.message)
            case .gone: return APIError(.gone, e.message)
            }
        case let e as ArchiveError:
            switch e {
            case .notFound(let m): return APIError(.notFound, m)
            case .unavailable(let m), .badResponse(let m): return APIError(.badGateway, "the PDB archive is unavailable: \(m); try again in a minute")
            case .timedOut(let m): return APIError(.gatewayTimeout, "the PDB archive did not answer in time: \(m); try again in a minute")
            }
        case is CancellationError:
            return APIError(.serviceUnavailable, "the request was cancelled (the client left, or the server is stopping)", retryAfter: 5)
        case let e as HTTPParserError:
            // A body the parser rejects (a bad chunk size): the client's fault, and the connection closes after.
            return APIError(.badRequest, "the request body is malformed (\(e))")
        case is NIOTooManyBytesError:
            return APIError(.contentTooLarge, "the upload is larger than the server accepts")
        case let e as HTTPError where e.status == .contentTooLarge:
            return APIError(.contentTooLarge, "the upload is larger than the server accepts")
        case let e as HTTPError: return APIError(e.status, e.body ?? e.status.reasonPhrase)
        default: return APIError(.internalServerError, "internal error: \(error)")
        }
    }
}

/// Runs service work for a route, turning what it throws into the API's status and message.
func call<T>(_ body: () async throws -> T) async throws -> T {
    do { return try await body() } catch { throw APIError.from(error) }
}

func call<T>(_ body: () throws -> T) throws -> T {
    do { return try body() } catch { throw APIError.from(error) }
}
