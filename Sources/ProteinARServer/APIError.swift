import Foundation
import Hummingbird
import ProteinDesign
import Library
import NIOCore
import MoleculeLibrary
import PDBArchive
import SketchRooms

/// An API failure as JSON `{"error": "…", "status": N}` with the matching status code.
struct APIError: HTTPResponseError {
    let status: HTTPResponse.Status
    let message: String

    init(_ status: HTTPResponse.Status, _ message: String) {
        self.status = status
        self.message = message
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var body = ByteBuffer()
        body.writeString(JSONText.object(["error": .string(message), "status": .int(Int(status.code))]))
        return Response(status: status, headers: [.contentType: "application/json; charset=utf-8"], body: .init(byteBuffer: body))
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
            case .archiveUnavailable(let m): return APIError(.badGateway, "the PDB archive is unavailable: \(m)")
            case .tooLarge(let m): return APIError(.contentTooLarge, m)
            }
        case let e as RequestError: return APIError(.badRequest, e.description)
        case let e as DesignError: return APIError(.badRequest, e.message)
        case let e as RoomError:
            switch e.kind {
            case .forbidden: return APIError(.forbidden, e.message)
            case .invalid: return APIError(.badRequest, e.message)
            case .notFound: return APIError(.notFound, e.message)
            }
        case let e as ArchiveError:
            switch e {
            case .notFound(let m): return APIError(.notFound, m)
            case .unavailable(let m), .badResponse(let m): return APIError(.badGateway, "the PDB archive is unavailable: \(m)")
            }
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
