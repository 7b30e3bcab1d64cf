import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// Base URLs of the public archives. Tests point all of them at one local fixture server that
/// answers on the same paths.
public struct ArchiveEndpoints: Sendable, Equatable {
    /// Coordinate files: `/download/{ID}.cif.gz`, `/download/{ID}.pdb.gz`.
    public var files: String = "https://files.rcsb.org"
    /// BinaryCIF: `/{ID}.bcif.gz`.
    public var models: String = "https://models.rcsb.org"
    /// Search API v2: `/rcsbsearch/v2/query`.
    public var search: String = "https://search.rcsb.org"
    /// Data API (GraphQL): `/graphql`.
    public var data: String = "https://data.rcsb.org"
    /// AlphaFold DB: `/api/prediction/{accession}`.
    public var alphaFold: String = "https://alphafold.ebi.ac.uk"

    public init() {}

    /// Every service at one base URL.
    public init(allAt base: String) {
        let b = base.hasSuffix("/") ? String(base.dropLast()) : base
        files = b; models = b; search = b; data = b; alphaFold = b
    }
}

public enum ArchiveError: Error, Sendable, Equatable, CustomStringConvertible {
    case notFound(String)
    /// The archive could not be reached or kept failing.
    case unavailable(String)
    /// The archive did not answer in time, however often asked.
    case timedOut(String)
    /// It answered with something that could not be understood.
    case badResponse(String)

    public var description: String {
        switch self {
        case .notFound(let m), .unavailable(let m), .timedOut(let m), .badResponse(let m): return m
        }
    }
}

/// A file as downloaded: the bytes (possibly gzip) and where they came from.
public struct ArchiveFile: Sendable {
    public var bytes: [UInt8]
    public var url: String
    /// What the file should be called (`4HHB.bcif.gz`), for messages and uploads.
    public var fileName: String
}

/// Bytes received so far and the total when the server said it.
public typealias DownloadProgress = @Sendable (_ received: Int, _ total: Int?) -> Void

/// When to try again: on 5xx, timeouts and refused connections (not on 429: the archive asked us
/// to slow down, and asking again at once is what it asked us not to do), waiting `firstDelay`, then
/// twice as long each time.
public struct RetryPolicy: Sendable {
    public var attempts = 3
    public var firstDelay: Duration = .milliseconds(250)
    /// Limit for one request, connection to last byte.
    public var timeout: Duration = .seconds(20)
    public init(attempts: Int = 3, firstDelay: Duration = .milliseconds(250), timeout: Duration = .seconds(20)) {
        self.attempts = attempts; self.firstDelay = firstDelay; self.timeout = timeout
    }
}

/// HTTP for the archive clients: GET and POST with retries, size limits and progress.
struct ArchiveHTTP: Sendable {

    let client: HTTPClient
    let retry: RetryPolicy
    /// Largest body accepted (a ribosome's mmCIF is about 30 MB; models are bigger than any entry).
    let maxBytes: Int

    struct Response {
        var status: HTTPResponseStatus
        var body: [UInt8]
    }

    func send(_ url: String, method: HTTPMethod = .GET, json: [UInt8]? = nil, what: String,
              progress: DownloadProgress? = nil) async throws -> Response {
        var delay = retry.firstDelay
        var lastProblem = ""
        var timedOut = false
        for attempt in 1...max(1, retry.attempts) {
            if attempt > 1 {
                try await Task.sleep(for: delay)
                delay *= 2
            }
            var request = HTTPClientRequest(url: url)
            request.method = method
            request.headers.add(name: "User-Agent", value: "ProteinAR/1.0")
            if let json {
                request.headers.add(name: "Content-Type", value: "application/json")
                request.body = .bytes(ByteBuffer(bytes: json))
            }
            do {
                let response = try await client.execute(request, timeout: .nanoseconds(Int64(retry.timeout.nanoseconds)))
                if response.status == .tooManyRequests {
                    throw ArchiveError.unavailable("\(what): the archive asks this server to slow down (429)")
                }
                if response.status.code >= 500 {
                    lastProblem = "\(what): the server answered \(response.status.code) \(response.status.reasonPhrase)"
                    timedOut = false
                    continue
                }
                let total = response.headers.first(name: "Content-Length").flatMap(Int.init)
                if let total, total > maxBytes {
                    throw ArchiveError.badResponse("\(what): \(total) bytes is more than the \(maxBytes) accepted")
                }
                var body: [UInt8] = []
                if let total { body.reserveCapacity(total) }
                for try await chunk in response.body {
                    body.append(contentsOf: chunk.readableBytesView)
                    guard body.count <= maxBytes else {
                        throw ArchiveError.badResponse("\(what): more than the \(maxBytes) bytes accepted")
                    }
                    progress?(body.count, total)
                }
                return Response(status: response.status, body: body)
            } catch let error as ArchiveError {
                throw error
            } catch is CancellationError {
                throw CancellationError()
            } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout || error == .connectTimeout {
                lastProblem = "\(what): no answer within \(retry.timeout)"
                timedOut = true
                continue
            } catch {
                lastProblem = "\(what): \(Self.describe(error))"
            }
            timedOut = false
        }
        let problem = lastProblem + " (tried \(max(1, retry.attempts)) times)"
        throw timedOut ? ArchiveError.timedOut(problem) : ArchiveError.unavailable(problem)
    }

    static func describe(_ error: any Error) -> String {
        let text = String(describing: error)
        if text.contains("connectionRefused") || text.contains("Connection refused") { return "connection refused" }
        return text
    }
}

extension Duration {
    var nanoseconds: Int64 {
        let (s, atto) = components
        return s * 1_000_000_000 + atto / 1_000_000_000
    }
}
