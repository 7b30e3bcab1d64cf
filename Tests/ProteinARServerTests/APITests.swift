import Foundation
import NIOHTTP1
import Testing
import TestArchive
import TestSupport

/// The HTTP API on real loopback HTTP, on SQLite and on PostgreSQL, against the fixture archive.
@Suite("Library API")
struct APITests {
    /// A small structure file to upload.
    static let ubiquitin = FixtureArchive.fixture("pdb1ubi.pdb")

    @Test("the starter library is installed once, listed, paged and filtered", arguments: StoreKind.allCases)
    func starterLibrary(kind: StoreKind) async throws {
        let server = try await TestServer.start(kind)
        defer { Task { await server.stop() } }
        let list = try await server.get("/api/molecules?limit=100")
        #expect(list.status == 200)
        let molecules = list.json["molecules"] as? [[String: Any]] ?? []
        #expect(molecules.count >= 10)
        #expect(molecules.allSatisfy { ($0["description"] as? String)?.isEmpty == false && $0["source"] as? String == "starter" })
        let page = try await server.get("/api/molecules?limit=3&offset=3&sort=id")
        #expect((page.json["molecules"] as? [Any])?.count == 3)
        #expect(page.json["total"] as? Int == molecules.count)
        let filtered = try await server.get("/api/molecules?q=ubiquitin")
        #expect((filtered.json["molecules"] as? [[String: Any]])?.map { $0["id"] as? String } == ["1UBI"])
        // Details: chains with sequences, ligands, secondary structure, assemblies.
        let detail = try await server.get("/api/molecules/1AKE")
        let details = detail.json["details"] as? [String: Any] ?? [:]
        #expect((details["chains"] as? [[String: Any]])?.first?["sequence"] as? String != nil)
        #expect((details["ligands"] as? [[String: Any]])?.contains { $0["name"] as? String == "AP5" } == true)
        #expect(details["secondaryStructure"] != nil && details["assemblies"] != nil)
        // What holds AP5 in 1AKE: its binding site and interactions, each atom named and indexed.
        let held = try await server.get("/api/molecules/1AKE/interactions")
        let sites = held.json["sites"] as? [[String: Any]] ?? []
        let ap5 = sites.first { (($0["ligand"] as? [[String: Any]])?.first?["residue"] as? String) == "AP5" } ?? [:]
        let entries = ap5["interactions"] as? [[String: Any]] ?? []
        #expect(held.status == 200 && held.headers["content-type"] == "application/json" && (ap5["site"] as? [Any])?.isEmpty == false)
        #expect(entries.contains { $0["kind"] as? String == "hydrogen-bond" && ($0["words"] as? String)?.hasPrefix("H-bond: ") == true })
        #expect(entries.allSatisfy { (($0["ligand"] as? [[String: Any]])?.first?["index"] as? Int) != nil })
        #expect(try await server.get("/api/molecules/1AKE/interactions", headers: ["If-None-Match": held.headers["etag"] ?? ""]).status == 304)
        // Compared with itself: chain A on chain A, nothing to move; a morph of frames all alike.
        let same = try await server.get("/api/molecules/1AKE/compare?with=1AKE")
        #expect(same.status == 200 && same.json["chain"] as? String == "A" && same.json["alignedResidues"] as? Int == 214)
        #expect((same.json["rmsdAll"] as? Double ?? 1) < 0.001 && (same.json["morph"] as? [String: Any])?["frames"] as? Int == 12)
        #expect(try await server.get("/api/molecules/1AKE/compare?with=1AKE", headers: ["If-None-Match": same.headers["etag"] ?? ""]).status == 304)
        let missing = try await server.get("/api/molecules/1AKE/compare?with=NOSUCH")
        #expect(missing.status == 404 && missing.text.contains("open or add it first"))
        #expect(try await server.get("/api/molecules/1AKE/compare").status == 400)
        #expect(try await server.get("/api/molecules/1AKE/model.glb?compare=1AKE&style=cartoon").status == 200)
        #expect(try await server.get("/api/molecules/1AKE/model.glb?morph=1AKE&model=3&style=cartoon").status == 200)
        let past = try await server.get("/api/molecules/1AKE/model.glb?morph=1AKE&model=13")
        #expect(past.status == 400 && past.text.contains("the morph has 12 frames"))
        // Opening the library again adds nothing.
        #expect(try await server.service.installStarterLibrary() == 0)
        // Bad list parameters say what is accepted.
        let bad = try await server.get("/api/molecules?sort=size")
        #expect(bad.status == 400 && bad.text.contains("recent"))
        #expect(try await server.get("/api/molecules?limit=0").status == 400)
        #expect(try await server.get("/api/molecules?source=mars").status == 400)
    }

    @Test("models: media types, ETag and If-None-Match, HEAD, options, cache", arguments: StoreKind.allCases)
    func models(kind: StoreKind) async throws {
        let server = try await TestServer.start(kind) { $0.installStarterLibrary = false }
        defer { Task { await server.stop() } }
        let added = try await server.request(.POST, "/api/molecules?name=1ubi.pdb", body: Self.ubiquitin)
        #expect(added.status == 201)
        let id = added.json["id"] as? String ?? ""
        #expect(id.hasPrefix("upload-"))
        let glb = try await server.get("/api/molecules/\(id)/model.glb?style=cartoon")
        #expect(glb.status == 200)
        #expect(glb.headers["content-type"] == "model/gltf-binary")
        #expect(Array(glb.body.prefix(4)) == Array("glTF".utf8))
        let etag = try #require(glb.headers["etag"])
        // The URL also answers progress events, so caches must key on Accept (and on the encoding).
        #expect(glb.headers["vary"] == "Accept, Accept-Encoding")
        #expect(try await server.get("/api/molecules/\(id)/model.glb?style=cartoon", headers: ["If-None-Match": etag]).status == 304)
        // HEAD: the GET's headers, no body (a client without decompression: AsyncHTTPClient's
        // decompressor expects a body whenever a response says Content-Encoding, even for HEAD).
        let head = try await CompressionTests.get(server, "/api/molecules/\(id)/model.glb?style=cartoon", method: .HEAD)
        #expect(head.status == 200 && head.body.isEmpty && head.headers["content-length"] == String(glb.body.count)
                && head.headers["etag"] == etag.replacingOccurrences(of: "-gz\"", with: "\""))
        let usdz = try await server.get("/api/molecules/\(id)/model.usdz")
        #expect(usdz.headers["content-type"] == "model/vnd.usdz+zip" && Array(usdz.body.prefix(2)) == [0x50, 0x4B])
        for format in ["obj", "stl", "dae", "ply", "mtl"] {
            #expect(try await server.get("/api/molecules/\(id)/model.\(format)?style=spacefill&max-triangles=20000").status == 200)
        }
        // Same options in another order share the cached model.
        let reordered = try await server.get("/api/molecules/\(id)/model.glb?hide=water&style=cartoon")
        #expect(reordered.headers["etag"] == etag)
        #expect(try await server.service.store.cacheSize() > 0)
        let png = try await server.get("/api/molecules/\(id)/thumbnail.png?size=64")
        #expect(png.status == 200 && png.headers["content-type"] == "image/png" && Array(png.body.prefix(4)) == [0x89, 0x50, 0x4E, 0x47])
        // What a tap names: the table the viewer's feature ids count, one entry per atom of the file (1UBI: 683, as gemmi counts).
        let table = try await server.get("/api/molecules/\(id)/identify.json")
        let atoms = table.json["atoms"] as? [String: Any], residues = table.json["residues"] as? [String: Any]
        #expect(table.status == 200 && table.headers["content-type"] == "application/json")
        #expect((atoms?["name"] as? [String])?.count == 683 && (atoms?["residue"] as? [Int])?.count == 683)
        // Coordinates in Å as the file gives them: 1UBI's first atom, MET 1 N, is at 27.343 24.294 2.683.
        let xyz = (atoms?["xyz"] as? [Double]) ?? []
        #expect(xyz.count == 3 * 683 && zip(xyz.prefix(3), [27.343, 24.294, 2.683]).allSatisfy { abs($0 - $1) < 1e-4 })
        #expect((residues?["name"] as? [String])?.first == "MET" && (residues?["secondary"] as? String)?.count == (residues?["name"] as? [String])?.count)
        #expect(try await server.get("/api/molecules/\(id)/identify.json", headers: ["If-None-Match": table.headers["etag"] ?? ""]).status == 304)
        let file = try await server.get("/api/molecules/\(id)/file")
        #expect(file.body == Self.ubiquitin && file.headers["content-type"] == "chemical/x-pdb")
        // A client that accepts gzip gets the stored gzip as it is: nothing inflated per request.
        let packed = try await CompressionTests.get(server, "/api/molecules/\(id)/file", headers: ["Accept-Encoding": "gzip"])
        let stored = try await server.service.storedFile(id: id).1
        #expect(packed.status == 200 && packed.headers["content-encoding"] == "gzip" && packed.body == stored)
        let packedTag = try #require(packed.headers["etag"])
        #expect(packedTag.hasSuffix("-gz\"") && packed.headers["vary"]?.contains("Accept-Encoding") == true)
        #expect(try await CompressionTests.get(server, "/api/molecules/\(id)/file", headers: ["Accept-Encoding": "gzip", "If-None-Match": packedTag]).status == 304)
        // Unknown values name what is accepted.
        let badStyle = try await server.get("/api/molecules/\(id)/model.glb?style=ribbons")
        #expect(badStyle.status == 400 && badStyle.text.contains("cartoon"))
        let badColor = try await server.get("/api/molecules/\(id)/model.glb?color=plaid")
        #expect(badColor.status == 400 && badColor.text.contains("rainbow"))
        let badFormat = try await server.get("/api/molecules/\(id)/model.fbx")
        #expect(badFormat.status == 404 && badFormat.text.contains("model.glb"))
        #expect(try await server.get("/api/molecules/\(id)/model.glb?select=Z:1-5").status == 400)
        #expect(try await server.get("/api/molecules/\(id)/model.glb?max-triangles=abc").status == 400)
        #expect(try await server.get("/api/molecules/\(id)/model.glb?wings=2").status == 400)
        // Progress of a conversion as server-sent events.
        let events = try await server.get("/api/molecules/\(id)/model.usdz?style=surface", headers: ["Accept": "text/event-stream"])
        #expect(events.headers["content-type"] == "text/event-stream" && events.headers["vary"] == "Accept")
        #expect(events.text.contains("event: progress") && events.text.contains("event: done"))
    }

    @Test("fetching from the archive: PDB fallback, extended ids, AlphaFold, shared downloads, events", arguments: StoreKind.allCases)
    func fetching(kind: StoreKind) async throws {
        let server = try await TestServer.start(kind) { $0.installStarterLibrary = false }
        defer { Task { await server.stop() } }
        // 1AKE has no mmCIF at the fixture: BinaryCIF 404, mmCIF 404, then the PDB file.
        let ake = try await server.postJSON("/api/molecules", #"{"id": "1ake"}"#)
        #expect(ake.status == 201)
        #expect(ake.json["id"] as? String == "1AKE" && ake.json["format"] as? String == "pdb" && ake.json["source"] as? String == "rcsb")
        #expect(try await server.postJSON("/api/molecules", #"{"id": "1AKE"}"#).status == 200)
        let bcif = try await server.postJSON("/api/molecules", #"{"id": "3JQH"}"#)
        #expect(bcif.json["format"] as? String == "bcif")
        let extended = try await server.postJSON("/api/molecules", #"{"id": "pdb_00005pti"}"#)
        #expect(extended.status == 201 && extended.json["id"] as? String == "pdb_00005pti")
        let alpha = try await server.postJSON("/api/molecules", #"{"id": "P69905"}"#)
        #expect(alpha.status == 201 && alpha.json["id"] as? String == "AF-P69905-F1" && alpha.json["source"] as? String == "alphafold")
        // Five requests at once for one entry: one download.
        await server.archive.log.reset()
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<5 { group.addTask { try await server.postJSON("/api/molecules", #"{"id": "2XHE"}"#).status } }
            var statuses: [Int] = []
            for try await s in group { statuses.append(s) }
            #expect(statuses.allSatisfy { $0 == 200 || $0 == 201 } && statuses.contains(201))
        }
        #expect(await server.archive.log.count("/download/2XHE.cif.gz") == 1)
        // Progress as server-sent events.
        let events = try await server.postJSON("/api/molecules", #"{"id": "5PTI"}"#, headers: ["Accept": "text/event-stream"])
        #expect(events.text.contains("event: progress") && events.text.contains("event: done") && events.text.contains("\"5PTI\""))
        // A 503 is retried: this test's archive answered 503 first, then the file.
        #expect(try await server.postJSON("/api/molecules", #"{"id": "7FLK"}"#).status == 201)
        #expect(await server.archive.log.statuses("/download/7FLK.cif.gz") == [503, 200])
    }

    @Test("bad input and archive faults: 400, 404, 413, 422, 502, 504, and the library keeps working", arguments: StoreKind.allCases)
    func faults(kind: StoreKind) async throws {
        let server = try await TestServer.start(kind) { $0.installStarterLibrary = false; $0.maxUploadBytes = 1 << 20 }
        defer { Task { await server.stop() } }
        let added = try await server.request(.POST, "/api/molecules?name=1ubi.pdb", body: Self.ubiquitin)
        let id = added.json["id"] as? String ?? ""
        let model = try await server.get("/api/molecules/\(id)/model.glb")
        #expect(model.status == 200)

        let invalid = try await server.postJSON("/api/molecules", #"{"id": "hemoglobin!"}"#)
        #expect(invalid.status == 400 && invalid.text.contains("4HHB") && invalid.text.contains("pdb_00004hhb"))
        #expect(try await server.postJSON("/api/molecules", "not json").status == 400)
        let missing = try await server.postJSON("/api/molecules", #"{"id": "9ZZZ"}"#)
        #expect(missing.status == 404 && missing.text.contains("9ZZZ"))
        #expect(try await server.postJSON("/api/molecules", #"{"id": "Q99999"}"#).status == 404)
        await server.archive.log.reset()
        let failing = try await server.postJSON("/api/molecules", #"{"id": "5XXX"}"#)
        #expect(failing.status == 502 && failing.text.contains("500") && failing.text.contains("try again"))
        #expect(await server.archive.log.count("/5XXX.bcif.gz") == 3)  // three attempts, then give up
        let slow = try await server.postJSON("/api/molecules", #"{"id": "6SLO"}"#)
        // Slow is not down: 504, saying so.
        #expect(slow.status == 504 && slow.text.contains("no answer") && slow.text.contains("try again"))
        let searchDown = try await server.get("/api/search?q=protein&rows=200")
        #expect(searchDown.status == 400)

        let garbage = try await server.request(.POST, "/api/molecules?name=junk.pdb", body: Array("this is not a structure\n".utf8))
        #expect(garbage.status == 422 && garbage.text.contains("junk.pdb"))
        let header = try await server.request(.POST, "/api/molecules?name=header.pdb",
                                              body: Array("HEADER    NOTHING\nTITLE     ONLY A HEADER\nEND\n".utf8))
        #expect(header.status == 422 && header.text.contains("header.pdb: this file has no atoms: only its header (title 'ONLY A HEADER')"))
        let big = try await server.request(.POST, "/api/molecules?name=big.pdb", body: [UInt8](repeating: 65, count: 2 << 20))
        #expect(big.status == 413)
        // A small gzip that would inflate to 20 MB (the limit is 8 × the 1 MB upload limit here).
        let bomb = try await server.request(.POST, "/api/molecules?name=bomb.pdb.gz",
                                            body: FixtureArchive.gzip([UInt8](repeating: 65, count: 20 << 20)))
        #expect(bomb.status == 413 && bomb.text.contains("inflates"))
        // The same file again is the molecule already there.
        let again = try await server.request(.POST, "/api/molecules?name=1ubi.pdb", body: Self.ubiquitin)
        #expect(again.status == 200 && again.json["id"] as? String == id)
        #expect(try await server.get("/api/molecules?q=a%20b%20c%20d%20e%20f%20g%20h%20i").status == 400)
        let traversal = try await server.request(.POST, "/api/molecules?name=..%2F..%2Fetc%2Fpasswd", body: Self.ubiquitin)
        #expect(traversal.status == 400)
        #expect(try await server.get("/api/molecules/..%2F..%2Fetc%2Fpasswd").status == 400)
        #expect(try await server.get("/api/molecules/..%2Flibrary.sqlite/file").status == 400)
        let escape = try await server.get("/../../etc/passwd")
        #expect((escape.status == 400 || escape.status == 404) && !escape.text.contains("root:"))
        #expect(try await server.get("/api/molecules/NOPE").status == 404)

        // Nothing stored was lost: the library and the cached model still answer.
        let list = try await server.get("/api/molecules")
        #expect(list.json["total"] as? Int == 1)
        #expect(try await server.get("/api/molecules/\(id)/model.glb").body == model.body)
        #expect(try await server.request(.DELETE, "/api/molecules/\(id)").status == 204)
        #expect(try await server.get("/api/molecules/\(id)").status == 404)
        // The model was just served from memory; once the molecule is gone, it is not.
        #expect(try await server.get("/api/molecules/\(id)/model.glb").status == 404)
        #expect(try await server.request(.DELETE, "/api/molecules/\(id)").status == 404)
        #expect(try await server.service.store.cacheSize() == 0)
    }

    @Test("GET /api/model-options: the engine's styles, colour schemes, hidden groups, formats, targets and limits")
    func modelOptions() async throws {
        let server = try await TestServer.start(.sqlite) { $0.installStarterLibrary = false }
        defer { Task { await server.stop() } }
        let answer = try await server.get("/api/model-options")
        #expect(answer.status == 200 && answer.headers["cache-control"]?.contains("max-age") == true)
        let styles = answer.json["styles"] as? [[String: Any]] ?? []
        #expect(styles.compactMap { $0["id"] as? String } == ["auto", "cartoon", "ball-and-stick", "spacefill", "sticks", "backbone", "surface"])
        let ballAndStick = styles.first { $0["id"] as? String == "ball-and-stick" }
        #expect(ballAndStick?["name"] as? String == "Ball and stick" && ballAndStick?["reachAngstroms"] as? Double == 0.5
                && ballAndStick?["followsTrace"] as? Bool == false)
        #expect(styles.first { $0["id"] as? String == "cartoon" }?["followsTrace"] as? Bool == true)
        let colours = answer.json["colors"] as? [[String: Any]] ?? []
        #expect(colours.count == 9 && colours.contains { $0["id"] as? String == "secondary-structure" && $0["name"] as? String == "Secondary structure" })
        #expect(answer.json["hide"] as? [String] == ["water", "hydrogens", "ligands"])
        #expect((answer.json["formats"] as? [String])?.contains("usdz") == true && (answer.json["formats"] as? [String])?.contains("mtl") == false)
        let targets = answer.json["targets"] as? [[String: Any]] ?? []
        #expect(targets.contains { $0["id"] as? String == "ar" && $0["triangles"] as? Int == 100_000 })
        #expect((answer.json["limits"] as? [String: Any])?["triangles"] as? [Int] == [1_000, 1_000_000])
    }

    @Test("search, health, metrics and the OpenAPI document", arguments: StoreKind.allCases)
    func searchAndService(kind: StoreKind) async throws {
        let server = try await TestServer.start(kind) { $0.installStarterLibrary = false; $0.metricsToken = "metrics-token-for-tests" }
        defer { Task { await server.stop() } }
        let found = try await server.get("/api/search?q=kinase")
        #expect(found.status == 200)
        let hits = found.json["hits"] as? [[String: Any]] ?? []
        #expect(hits.first?["id"] as? String == "1AKE")
        #expect((hits.first?["title"] as? String)?.contains("ADENYLATE KINASE") == true)
        #expect(hits.first?["releaseDate"] as? String == "1992-01-15" && hits.first?["resolution"] as? Double == 2.0)
        let paged = try await server.get("/api/search?q=protein&start=1&rows=2")
        #expect(paged.json["total"] as? Int == 4 && (paged.json["hits"] as? [Any])?.count == 2)
        let none = try await server.get("/api/search?q=unobtainium")
        #expect(none.status == 200 && none.json["total"] as? Int == 0)
        #expect(try await server.get("/api/search").status == 400)
        let health = try await server.get("/healthz")
        #expect(health.json["status"] as? String == "ok")
        #expect(health.json["database"] == nil)  // where the database is: for the operator only
        #expect(try await server.get("/healthz?detail=true").status == 401)
        let detail = try await server.get("/healthz?detail=true", headers: ["Authorization": "Bearer metrics-token-for-tests"])
        #expect(detail.status == 200 && detail.json["database"] is String)
        #expect(try await server.get("/metrics").status == 401)
        let metrics = try await server.get("/metrics", headers: ["Authorization": "Bearer metrics-token-for-tests"])
        #expect(metrics.status == 200 && metrics.text.contains("hb_request"))
        let openapi = try await server.get("/api/openapi.yaml")
        #expect(openapi.status == 200 && openapi.text.hasPrefix("openapi: 3.1.0"))
        let page = try await server.get("/")
        #expect(page.status == 200 && page.text.contains("<title>ProteinAR</title>"))
    }
}
