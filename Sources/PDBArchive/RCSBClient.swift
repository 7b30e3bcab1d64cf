import AsyncHTTPClient
import Foundation

/// One search result: the entry with what the Data API says about it.
public struct SearchHit: Codable, Sendable, Equatable {
    public var id: String
    public var title: String?
    public var method: String?
    public var resolution: Double?
    /// ISO date of first release (`1984-07-17`).
    public var releaseDate: String?
    public var score: Double?
}

public struct SearchResults: Codable, Sendable, Equatable {
    public var query: String
    public var total: Int
    public var start: Int
    public var hits: [SearchHit]
}

/// An AlphaFold DB prediction and its coordinates.
public struct AlphaFoldModel: Sendable {
    public var entryID: String
    public var accession: String
    public var description: String?
    public var organism: String?
    public var file: ArchiveFile
}

/// The RCSB PDB (files, BinaryCIF models, Search API v2, Data API) and AlphaFold DB, over
/// AsyncHTTPClient. The same code talks to the real services and to the tests' fixture server.
public struct ArchiveClient: Sendable {
    public let endpoints: ArchiveEndpoints
    let http: ArchiveHTTP

    /// One client for the process. AsyncHTTPClient's default pool keeps retrying a refused
    /// connection until the request's deadline; here a refused or failed connection fails at once,
    /// and `RetryPolicy` decides what to try again.
    public static let sharedHTTPClient: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.timeout.connect = .seconds(10)
        // A body that stalls after the headers (the request deadline no longer applies) fails too.
        configuration.timeout.read = .seconds(20)
        configuration.redirectConfiguration = .follow(max: 5, allowCycles: false)
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    public init(endpoints: ArchiveEndpoints = ArchiveEndpoints(), httpClient: HTTPClient = ArchiveClient.sharedHTTPClient,
                retry: RetryPolicy = RetryPolicy(), maxBytes: Int = 256 << 20) {
        self.endpoints = endpoints
        http = ArchiveHTTP(client: httpClient, retry: retry, maxBytes: maxBytes)
    }

    /// The entry's coordinates: BinaryCIF first (smallest, fastest to read), then mmCIF, then the
    /// PDB format (for old clients' sake); a 404 moves on to the next form.
    public func download(_ id: EntryID, progress: DownloadProgress? = nil) async throws -> ArchiveFile {
        let name: String
        switch id {
        case .pdb(let s): name = s
        case .extendedPDB(let s): name = s
        case .uniProt: return try await alphaFold(id, progress: progress).file
        }
        let candidates = [
            ("\(endpoints.models)/\(name).bcif.gz", "\(name).bcif.gz"),
            ("\(endpoints.files)/download/\(name).cif.gz", "\(name).cif.gz"),
            ("\(endpoints.files)/download/\(name).pdb.gz", "\(name).pdb.gz"),
        ]
        for (url, fileName) in candidates {
            let r = try await http.send(url, what: "RCSB \(fileName)", progress: progress)
            if r.status == .ok, !r.body.isEmpty { return ArchiveFile(bytes: r.body, url: url, fileName: fileName) }
            if r.status != .notFound && r.status != .gone && r.status != .forbidden {
                throw ArchiveError.badResponse("RCSB \(fileName): unexpected answer \(r.status.code)")
            }
        }
        throw ArchiveError.notFound("\(name) is not in the PDB archive")
    }

    /// Full-text search through the Search API v2, then titles, methods, resolutions and release
    /// dates of the page's entries from the Data API in one GraphQL request.
    public func search(_ text: String, start: Int = 0, rows: Int = 10) async throws -> SearchResults {
        let query: [String: Any] = [
            "query": ["type": "terminal", "service": "full_text", "parameters": ["value": text]],
            "return_type": "entry",
            "request_options": ["paginate": ["start": start, "rows": rows],
                                "sort": [["sort_by": "score", "direction": "desc"]]],
        ]
        let body = try [UInt8](JSONSerialization.data(withJSONObject: query))
        let r = try await http.send("\(endpoints.search)/rcsbsearch/v2/query", method: .POST, json: body, what: "RCSB search")
        // The Search API answers 204 No Content when nothing matches.
        if r.status == .noContent { return SearchResults(query: text, total: 0, start: start, hits: []) }
        guard r.status == .ok else { throw ArchiveError.badResponse("RCSB search: answer \(r.status.code)") }
        struct SearchResponse: Decodable {
            struct Item: Decodable { var identifier: String; var score: Double? }
            var total_count: Int
            var result_set: [Item]
        }
        guard let found = try? JSONDecoder().decode(SearchResponse.self, from: Data(r.body)) else {
            throw ArchiveError.badResponse("RCSB search: the answer is not the Search API's JSON")
        }
        var hits = found.result_set.map { SearchHit(id: $0.identifier, score: $0.score) }
        if !hits.isEmpty {
            let details = try await entryDetails(hits.map(\.id))
            for k in hits.indices { if let d = details[hits[k].id] { hits[k] = SearchHit(id: d.id, title: d.title, method: d.method, resolution: d.resolution, releaseDate: d.releaseDate, score: hits[k].score) } }
        }
        return SearchResults(query: text, total: found.total_count, start: start, hits: hits)
    }

    /// Titles, methods, resolutions and release dates of `ids`, in one Data API request.
    public func entryDetails(_ ids: [String]) async throws -> [String: SearchHit] {
        let graphQL = """
            query($ids: [String!]!) { entries(entry_ids: $ids) { rcsb_id struct { title } exptl { method } \
            rcsb_entry_info { resolution_combined } rcsb_accession_info { initial_release_date } } }
            """
        let body = try [UInt8](JSONSerialization.data(withJSONObject: ["query": graphQL, "variables": ["ids": ids]]))
        let r = try await http.send("\(endpoints.data)/graphql", method: .POST, json: body, what: "RCSB Data API")
        guard r.status == .ok else { throw ArchiveError.badResponse("RCSB Data API: answer \(r.status.code)") }
        struct DataResponse: Decodable {
            struct Entry: Decodable {
                struct Title: Decodable { var title: String? }
                struct Method: Decodable { var method: String? }
                struct Info: Decodable { var resolution_combined: [Double]? }
                struct Accession: Decodable { var initial_release_date: String? }
                var rcsb_id: String
                var `struct`: Title?
                var exptl: [Method]?
                var rcsb_entry_info: Info?
                var rcsb_accession_info: Accession?
            }
            struct Payload: Decodable { var entries: [Entry?]? }
            var data: Payload?
        }
        guard let decoded = try? JSONDecoder().decode(DataResponse.self, from: Data(r.body)) else {
            throw ArchiveError.badResponse("RCSB Data API: the answer is not the expected GraphQL JSON")
        }
        var out: [String: SearchHit] = [:]
        for case let e? in decoded.data?.entries ?? [] {
            out[e.rcsb_id] = SearchHit(id: e.rcsb_id, title: e.struct?.title,
                                       method: e.exptl?.compactMap(\.method).joined(separator: ", "),
                                       resolution: e.rcsb_entry_info?.resolution_combined?.first,
                                       releaseDate: e.rcsb_accession_info?.initial_release_date.map { String($0.prefix(10)) })
        }
        return out
    }

    /// The AlphaFold DB model of a UniProt accession: the prediction record, then its mmCIF.
    public func alphaFold(_ id: EntryID, progress: DownloadProgress? = nil) async throws -> AlphaFoldModel {
        guard case .uniProt(let accession) = id else { throw ArchiveError.notFound("\(id) is not a UniProt accession") }
        let r = try await http.send("\(endpoints.alphaFold)/api/prediction/\(accession)", what: "AlphaFold DB \(accession)")
        if r.status == .notFound || r.status == .badRequest { throw ArchiveError.notFound("AlphaFold DB has no model for \(accession)") }
        guard r.status == .ok else { throw ArchiveError.badResponse("AlphaFold DB \(accession): answer \(r.status.code)") }
        struct Prediction: Decodable {
            var entryId: String
            var uniprotDescription: String?
            var organismScientificName: String?
            var cifUrl: String?
            var pdbUrl: String?
        }
        guard let predictions = try? JSONDecoder().decode([Prediction].self, from: Data(r.body)),
              let p = predictions.first(where: { $0.entryId == "AF-\(accession)-F1" }) ?? predictions.first,
              let url = p.cifUrl ?? p.pdbUrl else {
            throw ArchiveError.badResponse("AlphaFold DB \(accession): the answer names no model file")
        }
        // The file must come from AlphaFold DB itself: the answer's URL is followed only to its host
        // (an answer naming any other host could make the server fetch what it should not reach).
        guard Self.sameOrigin(url, endpoints.alphaFold) else {
            throw ArchiveError.badResponse("AlphaFold DB \(accession): the model file is on another host (\(url.prefix(80))); not followed")
        }
        let fileName = String(url.split(separator: "/").last ?? Substring(p.entryId))
        let file = try await http.send(url, what: "AlphaFold DB \(fileName)", progress: progress)
        guard file.status == .ok, !file.body.isEmpty else {
            throw file.status == .notFound ? ArchiveError.notFound("AlphaFold DB lists \(fileName) but does not serve it")
                : ArchiveError.badResponse("AlphaFold DB \(fileName): answer \(file.status.code)")
        }
        return AlphaFoldModel(entryID: p.entryId, accession: accession, description: p.uniprotDescription,
                              organism: p.organismScientificName, file: ArchiveFile(bytes: file.body, url: url, fileName: fileName))
    }

    /// Same scheme, host and port: AlphaFold DB lists its files on its own host (alphafold.ebi.ac.uk).
    static func sameOrigin(_ a: String, _ b: String) -> Bool {
        guard let x = URLComponents(string: a), let y = URLComponents(string: b), let host = x.host?.lowercased(), !host.isEmpty else { return false }
        func port(_ c: URLComponents) -> Int? { c.port ?? (c.scheme == "https" ? 443 : c.scheme == "http" ? 80 : nil) }
        return x.scheme?.lowercased() == y.scheme?.lowercased() && host == y.host?.lowercased() && port(x) == port(y)
    }
}
