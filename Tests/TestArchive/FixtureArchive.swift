import Foundation
import Hummingbird
import Logging
import NIOCore

/// A local stand-in for the RCSB PDB and AlphaFold DB (the machines here have no internet): the
/// same paths and JSON shapes as the real services, and real file bytes from Tests/Fixtures.
/// Some ids misbehave on purpose:
///   5XXX always answers 500; 7FLK answers 503 the first time each of its paths is asked for, then
///   the file (once per archive: each test starts its own, so each sees the 503); 6SLO answers after
///   30 s; 8HNG sends half of its file and then hangs (for killing a server mid-download);
///   anything else without a fixture is 404.
public final class FixtureArchive: Sendable {
    public let port: Int
    private let task: Task<Void, any Error>
    /// Every request this archive answered, with the status it answered.
    public let log: RequestLog

    public actor RequestLog {
        private var hits: [String: Int] = [:]
        private var answers: [String: [Int]] = [:]
        func arrived(_ path: String) { hits[path, default: 0] += 1 }
        func answered(_ path: String, status: Int) { answers[path, default: []].append(status) }
        /// How many requests for `path` came.
        public func count(_ path: String) -> Int { hits[path] ?? 0 }
        /// The statuses `path` was answered with so far, in order.
        public func statuses(_ path: String) -> [Int] { answers[path] ?? [] }
        public func reset() { hits = [:]; answers = [:] }
    }

    public static let structures: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/structures")

    public static func fixture(_ name: String) -> [UInt8] {
        (try? [UInt8](Data(contentsOf: structures.appendingPathComponent(name)))) ?? []
    }

    /// Files by archive path.
    public static let files: [String: [UInt8]] = {
        var f: [String: [UInt8]] = [:]
        f["/3JQH.bcif.gz"] = fixture("3jqh.bcif.gz")
        f["/download/2XHE.cif.gz"] = fixture("2XHE.cif.gz")
        f["/download/5PTI.cif.gz"] = fixture("5PTI.cif.gz")
        f["/download/pdb_00005pti.cif.gz"] = fixture("5PTI.cif.gz")
        f["/download/1AKE.pdb.gz"] = gzip(fixture("pdb1ake.pdb"))   // no mmCIF: the client falls back to PDB
        f["/download/7FLK.cif.gz"] = fixture("5PTI.cif.gz")
        f["/download/6SLO.cif.gz"] = fixture("5PTI.cif.gz")
        f["/download/8HNG.cif.gz"] = fixture("2XHE.cif.gz")
        // AlphaFold DB has no model among the shared files; a real single-chain mmCIF stands in.
        f["/files/AF-P69905-F1-model_v4.cif"] = fixture("1A8O.cif")
        return f
    }()

    public static func gzip(_ bytes: [UInt8]) -> [UInt8] {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/gzip")
        p.arguments = ["-c"]
        let input = Pipe(), output = Pipe()
        p.standardInput = input; p.standardOutput = output
        try? p.run()
        input.fileHandleForWriting.write(Data(bytes)); try? input.fileHandleForWriting.close()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return [UInt8](out)
    }

    static let titles: [String: (String, String, Double?, String)] = [
        "2XHE": ("Crystal structure of the Unc18-syntaxin 1 complex from Monosiga brevicollis", "X-RAY DIFFRACTION", 2.8, "2010-09-22T00:00:00+0000"),
        "5PTI": ("STRUCTURE OF BOVINE PANCREATIC TRYPSIN INHIBITOR", "X-RAY DIFFRACTION", 1.0, "1983-01-18T00:00:00+0000"),
        "1AKE": ("STRUCTURE OF THE COMPLEX BETWEEN ADENYLATE KINASE FROM ESCHERICHIA COLI AND THE INHIBITOR AP5A", "X-RAY DIFFRACTION", 2.0, "1992-01-15T00:00:00+0000"),
        "3JQH": ("Structure of the neck region of the glycan-binding receptor DC-SIGNR", "X-RAY DIFFRACTION", 2.201, "2009-10-13T00:00:00+0000"),
    ]

    public init() async throws {
        let log = RequestLog()
        self.log = log
        let flaky = Flaky()
        let router = Router(context: BasicRequestContext.self)
        router.middlewares.add(LogMiddleware(log: log))
        router.get("download/:file") { request, context in try await Self.file(request.uri.path, flaky: flaky) }
        router.get("files/:file") { request, context in try await Self.file(request.uri.path, flaky: flaky) }
        router.get(":file") { request, context in try await Self.file(request.uri.path, flaky: flaky) }
        router.post("rcsbsearch/v2/query") { request, context in try await Self.search(request, context: context) }
        router.post("graphql") { request, context in try await Self.graphQL(request, context: context) }
        router.get("api/prediction/:accession") { request, context in
            let accession = try context.parameters.require("accession")
            guard accession == "P69905" else { throw HTTPError(.notFound) }
            let host = request.head.authority ?? "127.0.0.1"
            return Self.json("""
                [{"entryId":"AF-P69905-F1","uniprotAccession":"P69905","uniprotDescription":"Hemoglobin subunit alpha",
                  "organismScientificName":"Homo sapiens","latestVersion":4,
                  "cifUrl":"http://\(host)/files/AF-P69905-F1-model_v4.cif",
                  "pdbUrl":"http://\(host)/files/AF-P69905-F1-model_v4.pdb"}]
                """)
        }
        var quiet = Logger(label: "fixture-archive")
        quiet.logLevel = .critical
        let logger = quiet
        let (port, task) = try await LoopbackServer.start("the fixture archive") { running in
            Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                        onServerRunning: { channel in running(channel.localAddress?.port ?? 0) }, logger: logger)
        }
        self.port = port
        self.task = task
    }

    public var baseURL: String { "http://127.0.0.1:\(port)" }

    public func stop() { task.cancel() }

    struct LogMiddleware: RouterMiddleware {
        let log: RequestLog
        func handle(_ request: Request, context: BasicRequestContext,
                    next: (Request, BasicRequestContext) async throws -> Response) async throws -> Response {
            let path = request.uri.path
            await log.arrived(path)
            do {
                let response = try await next(request, context)
                await log.answered(path, status: Int(response.status.code))
                return response
            } catch let error as HTTPError {
                await log.answered(path, status: Int(error.status.code))
                throw error
            }
        }
    }

    static func file(_ path: String, flaky: Flaky) async throws -> Response {
        if path.contains("5XXX") { throw HTTPError(.internalServerError) }
        if path.contains("7FLK"), await flaky.firstTime(path) { throw HTTPError(.serviceUnavailable) }
        if path.contains("6SLO") { try await Task.sleep(for: .seconds(30)) }
        guard let bytes = files[path] else { throw HTTPError(.notFound) }
        if path.contains("8HNG") {
            // Half the file, then nothing: the server being tested is killed meanwhile.
            return Response(status: .ok, headers: [.contentLength: String(bytes.count)], body: ResponseBody { writer in
                try await writer.write(ByteBuffer(bytes: bytes[0..<bytes.count / 2]))
                try await Task.sleep(for: .seconds(120))
                try await writer.write(ByteBuffer(bytes: bytes[(bytes.count / 2)...]))
                try await writer.finish(nil)
            })
        }
        return Response(status: .ok, headers: [.contentType: "application/octet-stream"], body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// The paths this archive has been asked for: the first time, 7FLK's answer 503.
    actor Flaky {
        var seen: Set<String> = []
        func firstTime(_ path: String) -> Bool { seen.insert(path).inserted }
    }

    static func search(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let body = try await request.body.collect(upTo: 1 << 20)
        guard let object = try JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any],
              let query = object["query"] as? [String: Any], query["service"] as? String == "full_text",
              let parameters = query["parameters"] as? [String: Any], let value = parameters["value"] as? String,
              let options = object["request_options"] as? [String: Any], let paginate = options["paginate"] as? [String: Any],
              let start = paginate["start"] as? Int, let rows = paginate["rows"] as? Int else {
            return Response(status: .badRequest)
        }
        let words = value.lowercased()
        let matches = titles.keys.sorted().filter { titles[$0]!.0.lowercased().contains(words) || words == "protein" }
        if matches.isEmpty { return Response(status: .noContent) }  // as the real Search API does
        let page = matches.dropFirst(start).prefix(rows)
        let items = page.enumerated().map { "{\"identifier\":\"\($0.element)\",\"score\":\(1.0 - Double($0.offset) * 0.1)}" }
        return json("{\"query_id\":\"fixture\",\"result_type\":\"entry\",\"total_count\":\(matches.count),\"result_set\":[\(items.joined(separator: ","))]}")
    }

    static func graphQL(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let body = try await request.body.collect(upTo: 1 << 20)
        guard let object = try JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any],
              let variables = object["variables"] as? [String: Any], let ids = variables["ids"] as? [String],
              (object["query"] as? String)?.contains("entries(entry_ids: $ids)") == true else {
            return Response(status: .badRequest)
        }
        let entries = ids.map { id -> String in
            guard let t = titles[id] else { return "null" }
            let resolution = t.2.map { "[\($0)]" } ?? "null"
            return """
                {"rcsb_id":"\(id)","struct":{"title":"\(t.0)"},"exptl":[{"method":"\(t.1)"}],\
                "rcsb_entry_info":{"resolution_combined":\(resolution)},"rcsb_accession_info":{"initial_release_date":"\(t.3)"}}
                """
        }
        return json("{\"data\":{\"entries\":[\(entries.joined(separator: ","))]}}")
    }

    static func json(_ text: String) -> Response {
        Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
