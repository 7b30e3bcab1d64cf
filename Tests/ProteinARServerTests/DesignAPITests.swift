import Foundation
import Testing
import TestSupport

/// The builder over HTTP: verdicts, files of a design named by its URL, saving to the library, bad input.
@Suite("Design API")
struct DesignAPITests {
    @Test("POST /api/designs builds, judges and names motifs with a library example; save keeps it", arguments: StoreKind.allCases)
    func build(kind: StoreKind) async throws {
        let server = try await TestServer.start(kind)
        defer { Task { await server.stop() } }
        let reply = try await server.postJSON("/api/designs", #"{"pieces": "helix:14,coil:4,helix:14"}"#)
        #expect(reply.status == 200)
        let json = reply.json
        #expect(json["valid"] as? Bool == true)
        #expect(json["message"] as? String == "Congratulations, you have created a new protein made of Helix – Flex coil – Helix")
        let motifs = json["motifs"] as? [[String: Any]] ?? []
        #expect(motifs.first?["name"] as? String == "helix-turn-helix")
        #expect((motifs.first?["example"] as? [String: Any])?["id"] as? String == "1LCD")
        #expect((json["secondaryStructure"] as? String)?.contains("HHHHHHHHHH") == true)
        let links = json["links"] as? [String: String] ?? [:]
        let usdz = try await server.get(links["usdz"] ?? "/")
        #expect(usdz.status == 200 && usdz.headers["content-type"] == "model/vnd.usdz+zip" && Array(usdz.body.prefix(2)) == [0x50, 0x4B])
        // A design is fixed by its URL: a cached copy is confirmed without building it again.
        let usdzTag = try #require(usdz.headers["etag"])
        #expect(try await server.get(links["usdz"] ?? "/", headers: ["If-None-Match": usdzTag]).status == 304)
        let pdb = try await server.get(links["pdb"] ?? "/")
        #expect(pdb.status == 200 && pdb.text.contains("ATOM      1  N   ALA A   1"))
        #expect(try await server.get(links["glb"] ?? "/").body.prefix(4) == Array("glTF".utf8)[...])

        // The list form, kept in the library; keeping it again finds the same molecule.
        let body = #"{"pieces": [{"kind": "sheet", "length": 6}, {"kind": "coil", "length": 2}, {"kind": "strand"}], "seed": 1, "save": true}"#
        let saved = try await server.postJSON("/api/designs", body)
        #expect(saved.status == 200 && saved.json["valid"] as? Bool == true)
        let molecule = saved.json["molecule"] as? [String: Any] ?? [:]
        let id = try #require(molecule["id"] as? String)
        #expect(id.hasPrefix("design-") && molecule["source"] as? String == "design")
        #expect(try await server.get("/api/molecules/\(id)").status == 200)
        #expect(try await server.get("/api/molecules/\(id)/model.glb?style=cartoon").status == 200)
        #expect((try await server.postJSON("/api/designs", body).json["molecule"] as? [String: Any])?["id"] as? String == id)
        #expect((try await server.get("/api/molecules?source=design").json["total"] as? Int) == 1)
    }

    @Test("GET /api/designs/pieces.*: the pieces before Try in every model format, the same bytes from any server, clear errors")
    func pieces() async throws {
        let path = "/api/designs/pieces.usdz?pieces=helix:14,coil:4,strand:6"
        var first: [UInt8] = []
        for round in 0..<2 {
            // A fresh server each round: the same URL must give the same bytes, not only the cached copy.
            let server = try await TestServer.start(.sqlite) { $0.installStarterLibrary = false }
            defer { Task { await server.stop() } }
            let usdz = try await server.get(path)
            #expect(usdz.status == 200 && usdz.headers["content-type"] == "model/vnd.usdz+zip" && Array(usdz.body.prefix(2)) == [0x50, 0x4B])
            #expect(usdz.headers["content-disposition"]?.contains("pieces.usdz") == true)
            if round == 0 { first = usdz.body } else { #expect(usdz.body == first, "the pieces' USDZ differs between two servers") }
            guard round == 0 else { continue }
            for (format, type) in [("glb", "model/gltf-binary"), ("obj", "model/obj"), ("stl", "model/stl"), ("dae", "model/vnd.collada+xml"), ("ply", "application/x-ply")] {
                let reply = try await server.get("/api/designs/pieces.\(format)?pieces=helix:14,coil:4,strand:6")
                #expect(reply.status == 200 && reply.headers["content-type"] == type, "pieces.\(format): \(reply.status) \(reply.headers)")
            }
            // The pieces and the design they join into are different models, cached under different keys.
            let design = try await server.get("/api/designs/model.usdz?pieces=helix:14,coil:4,strand:6")
            #expect(design.status == 200 && design.body != usdz.body && design.headers["etag"] != usdz.headers["etag"])
            let tag = try #require(usdz.headers["etag"])
            #expect(try await server.get(path, headers: ["If-None-Match": tag]).status == 304)

            let bad = try await server.get("/api/designs/pieces.glb?pieces=helix:14,wing:3")
            #expect(bad.status == 400 && bad.text.contains("piece 2 'wing:3' is not a piece"), "\(bad.text)")
            let seeded = try await server.get("/api/designs/pieces.glb?pieces=helix:14&seed=2")
            #expect(seeded.status == 400 && seeded.text.contains("seed"), "\(seeded.text)")
            let light = try await server.get("/api/designs/pieces.glb?pieces=helix:14&hydrogens=true")
            #expect(light.status == 400 && light.text.contains("hydrogens"), "\(light.text)")
            let option = try await server.get("/api/designs/pieces.glb?pieces=helix:14&wings=2")
            #expect(option.status == 400 && option.text.contains("wings"), "\(option.text)")
            let unknown = try await server.get("/api/designs/pieces.pdb?pieces=helix:14")
            #expect(unknown.status == 404 && unknown.text.contains("pieces.usdz") && unknown.text.contains("model.glb"), "\(unknown.text)")
        }
    }

    @Test("impossible designs and bad input", arguments: [StoreKind.sqlite])
    func badInput(kind: StoreKind) async throws {
        let server = try await TestServer.start(kind) { $0.installStarterLibrary = false }
        defer { Task { await server.stop() } }
        let impossible = try await server.postJSON("/api/designs", #"{"pieces": "helix:20,coil:1,helix:20"}"#)
        #expect(impossible.status == 200 && impossible.json["valid"] as? Bool == false)
        #expect(impossible.json["message"] as? String == "Sorry, this combination cannot be made")
        #expect((impossible.json["reasons"] as? [String])?.contains { $0.contains("too short to turn") } == true)
        // Its model lights what the refusal is about (the marked residues) and dims the rest.
        let marked = impossible.json["marked"] as? [[String: Any]] ?? []
        let glb = (impossible.json["links"] as? [String: Any])?["glb"] as? String ?? ""
        #expect(marked.contains { ($0["first"] as? Int ?? 99) <= 21 && 21 <= ($0["last"] as? Int ?? 0) }, "\(marked)")
        #expect(glb.contains("highlight=A:"), "\(glb)")
        #expect(try await server.get(glb).status == 200)

        for (body, expected) in [
            (#"{"pieces": "helix:14,wing:3"}"#, "is not a piece"),
            (#"{"pieces": "helix:0"}"#, "lengths are 1 to 500"),
            (#"{"pieces": "helix:4", "sequence": "AAZA"}"#, "'Z' at position 3"),
            (#"{"pieces": "helix:4", "sequence": "AAA"}"#, "3 residues but the pieces have 4"),
            (#"{"pieces": "helix:500,helix:500,helix:500,helix:500,helix:500"}"#, "at most 2000"),
            (#"{"pieces": [{"kind": "loopy"}]}"#, "'loopy' is not a piece"),
            (#"{"pieces": "helix:4", "hydrogens": "yes"}"#, "expected {"),
            (#"{"shape": "helix"}"#, "expected {"),
            ("not json", "expected {"),
        ] {
            let reply = try await server.postJSON("/api/designs", body)
            #expect(reply.status == 400 && reply.text.contains(expected), "\(body): \(reply.status) \(reply.text)")
        }
        #expect(try await server.get("/api/designs/model.glb").status == 400)
        #expect(try await server.get("/api/designs/model.glb?pieces=helix:10&seed=x").status == 400)
        #expect(try await server.get("/api/designs/model.glb?pieces=helix:10&wings=2").status == 400)
        #expect(try await server.get("/api/designs/design.pdb?pieces=helix:10&style=cartoon").status == 400)
        #expect(try await server.get("/api/designs/model.fbx?pieces=helix:10").status == 404)
        #expect(try await server.get("/api/designs/model.glb?pieces=helix:10,blob").status == 400)
        let yes = try await server.get("/api/designs/design.pdb?pieces=helix:10&hydrogens=yes")
        #expect(yes.status == 400 && yes.text.contains("hydrogens 'yes': accepted: true, false"), "\(yes.text)")
        // Hydrogens, asked for in the query or the body, are in the files; the links carry the choice.
        let bare = try await server.get("/api/designs/design.pdb?pieces=helix:10")
        let light = try await server.get("/api/designs/design.pdb?pieces=helix:10&hydrogens=true")
        #expect(bare.status == 200 && !bare.text.contains(" HA ") && light.status == 200 && light.text.contains(" HA "))
        #expect(bare.headers["etag"] != light.headers["etag"])
        let built = try await server.postJSON("/api/designs", #"{"pieces": "helix:10", "hydrogens": true}"#)
        #expect(built.json["hydrogens"] as? Bool == true)
        let links = try #require(built.json["links"] as? [String: Any])
        #expect((links["pdb"] as? String)?.contains("hydrogens=true") == true, "\(links)")
        // The server carries on.
        #expect(try await server.get("/api/designs/model.glb?pieces=helix:10").status == 200)
    }
}
