import Foundation
import Storage
import MoleculeLibrary
import PDBArchive
import SceneExport
import RoomModels
import Rooms
import Testing
import TestSupport

/// Rooms as AR models: strokes as tubes with the room's molecule where it was placed.
@Suite("Room models")
struct RoomModelTests {
    /// Where the samples go, for `scripts/test` to hand to the independent checkers.
    static let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent(".build/export-samples")

    /// A library on SQLite holding the starter library's 1AKE, and how to throw it away.
    static func library() async throws -> (LibraryService, @Sendable () async -> Void) {
        let dir = try ScratchDirectory("proteinar-rooms")
        let store = try SQLiteLibraryStore(path: dir.sqliteFile)
        try await store.migrate()
        // No archive is asked: 1AKE comes from the starter library's own file.
        let service = LibraryService(store: store, archive: ArchiveClient(endpoints: ArchiveEndpoints(allAt: "http://127.0.0.1:9")))
        let entry = try #require(try StarterLibrary.entries().first { $0.id == "1AKE" })
        _ = try await service.add(bytes: entry.bytes, fileName: entry.fileName, id: entry.id, source: .starter,
                                  description: entry.description)
        return (service, { try? await store.close(); dir.remove() })
    }

    static func room(_ operations: [RoomOperation]) -> RoomState {
        var state = RoomState()
        for (i, op) in operations.enumerated() {
            state.replay(LoggedOperation(sequence: UInt64(i + 1), author: "a1", clientOpID: "c\(i)", operation: op))
        }
        return state
    }

    /// Column-major: a turn of `degrees` about Y, a uniform `scale`, then a move by `t`.
    static func placement(degrees: Double = 0, scale: Double = 1, t: (Double, Double, Double) = (0, 0, 0)) -> [Double] {
        let a = degrees * .pi / 180, c = cos(a) * scale, s = sin(a) * scale
        return [c, 0, -s, 0, 0, scale, 0, 0, s, 0, c, 0, t.0, t.1, t.2, 1]
    }

    /// Strokes around and over where the molecule stands: a ring, a rising spiral, a zigzag with
    /// sharp corners, a dot; four colours, widths from 2 mm to 2 cm.
    static let strokes: [RoomOperation] = {
        var ops: [RoomOperation] = []
        let ring = (0...120).map { i -> RoomPoint in
            let a = 2 * Double.pi * Double(i) / 120
            return RoomPoint(0.1 + 0.25 * cos(a), 0.02, -0.05 + 0.25 * sin(a))
        }
        ops.append(.addStroke(id: "ring", points: ring, color: "#e6194b", width: 0.008))
        let spiral = (0..<200).map { i -> RoomPoint in
            let a = 6 * Double.pi * Double(i) / 199
            return RoomPoint(0.1 + 0.18 * cos(a), 0.02 + 0.3 * Double(i) / 199, -0.05 + 0.18 * sin(a))
        }
        ops.append(.addStroke(id: "spiral", points: Array(spiral.prefix(100)), color: "#3CB44B", width: 0.004))
        ops.append(.extendStroke(id: "spiral", points: Array(spiral.dropFirst(100))))
        let zigzag = (0..<9).map { i in RoomPoint(-0.3 + 0.05 * Double(i), 0.35 + (i % 2 == 0 ? 0 : 0.06), 0.2) }
        ops.append(.addStroke(id: "zigzag", points: zigzag, color: "#4363d8", width: 0.02))
        ops.append(.addStroke(id: "dot", points: [RoomPoint(0.4, 0.3, 0.1)], color: "#ffe119", width: 0.015))
        ops.append(.addStroke(id: "thin", points: [RoomPoint(-0.2, 0.0, -0.2), RoomPoint(-0.2, 0.4, -0.2)], color: "#000000", width: 0.002))
        return ops
    }()

    static func bounds(_ scene: TriangleScene, nodes prefix: String = "molecule-") throws -> (SIMD3<Float>, SIMD3<Float>) {
        var only = scene
        only.nodes = scene.nodes.filter { $0.name.hasPrefix(prefix) }
        return try #require(only.worldBounds())
    }

    @Test("a room with strokes and the starter 1AKE exports as USDZ and GLB (files left for the checkers)")
    func export() async throws {
        let (service, cleanup) = try await Self.library()
        defer { Task { await cleanup() } }
        let placed = MoleculePlacement(moleculeID: "1AKE", style: "cartoon", transform: Self.placement(degrees: 30, t: (0.1, 0, -0.05)))
        let state = Self.room(Self.strokes + [.setMolecule(placed)])

        let room = try await service.roomScene(of: state)
        #expect(room.notes.isEmpty)
        try room.scene.validate()
        let strokeNodes = room.scene.nodes.filter { $0.name == "strokes" }
        #expect(strokeNodes.count == 1)
        #expect(room.scene.nodes.contains { $0.name.hasPrefix("molecule-") })
        let strokeTriangles = room.scene.meshes[strokeNodes[0].mesh].triangleCount
        #expect(strokeTriangles > 5_000 && room.scene.triangleCount > strokeTriangles + 10_000)

        try FileManager.default.createDirectory(at: Self.samples, withIntermediateDirectories: true)
        let usdz = try await service.roomModel(of: state, format: .usdz)
        #expect(usdz.mediaType == "model/vnd.usdz+zip" && Array(usdz.bytes.prefix(2)) == [0x50, 0x4B])
        #expect(usdz.triangles == room.scene.triangleCount && usdz.notes.isEmpty)
        try Data(usdz.bytes).write(to: Self.samples.appendingPathComponent("room-strokes.usdz"))
        let glb = try await service.roomModel(of: state, format: .glb)
        #expect(glb.mediaType == "model/gltf-binary" && Array(glb.bytes.prefix(4)) == Array("glTF".utf8))
        try Data(glb.bytes).write(to: Self.samples.appendingPathComponent("room-strokes.glb"))
        #expect(glb.key != usdz.key)

        // The file holds the strokes' colours: the USDZ has a material per colour (Quick Look
        // ignores vertex colours), and the GLB carries them as COLOR_0.
        // (The package's crate layer is binary; the text form of the same layer shows them.)
        let layer = String(decoding: USDZWriter.usda(room.scene), as: UTF8.self)
        #expect(layer.components(separatedBy: "info:id = \"UsdPreviewSurface\"").count > 2)
        #expect(String(decoding: glb.bytes.prefix(4096), as: UTF8.self).contains("COLOR_0"))
        // Concurrent identical exports agree (they share one build).
        async let a = service.roomModel(of: state, format: .glb)
        async let b = service.roomModel(of: state, format: .glb)
        let (ma, mb) = try await (a, b)
        #expect(ma.bytes == glb.bytes && mb.bytes == glb.bytes)
    }

    @Test("the molecule is the model URL's model (0.3 m, on the floor at the origin) moved by the placement")
    func placement() async throws {
        let (service, cleanup) = try await Self.library()
        defer { Task { await cleanup() } }
        func scene(_ transform: [Double]) async throws -> TriangleScene {
            let state = Self.room([.setMolecule(MoleculePlacement(moleculeID: "1AKE", style: "cartoon", transform: transform))])
            let room = try await service.roomScene(of: state)
            #expect(room.notes.isEmpty)
            try room.scene.validate()
            return room.scene
        }
        let plain = try await scene(MoleculePlacement.identity)
        let (lo, hi) = try Self.bounds(plain)
        let extent = hi - lo
        #expect(abs(max(extent.x, extent.y, extent.z) - 0.3) < 1e-4)
        #expect(abs(lo.y) < 1e-5 && abs(lo.x + hi.x) < 1e-5 && abs(lo.z + hi.z) < 1e-5)

        // Moved: the same box, moved.
        let moved = try await scene(Self.placement(t: (1, 2, -3)))
        let (mlo, mhi) = try Self.bounds(moved)
        #expect(simdClose(mlo, lo + SIMD3(1, 2, -3)) && simdClose(mhi, hi + SIMD3(1, 2, -3)))
        #expect(moved.triangleCount == plain.triangleCount)

        // Turned a quarter about Y and doubled: x and z trade places, twice as long.
        let turned = try await scene(Self.placement(degrees: 90, scale: 2))
        let (tlo, thi) = try Self.bounds(turned)
        #expect(simdClose(tlo, SIMD3(2 * lo.z, 2 * lo.y, -2 * hi.x)) && simdClose(thi, SIMD3(2 * hi.z, 2 * hi.y, -2 * lo.x)))
        // A similarity stays in the node transforms: the meshes are the model's, not copies.
        #expect(turned.meshes == plain.meshes)

        // Mirrored in x: baked into the vertices, triangles turned over so they still face out.
        var mirror = MoleculePlacement.identity
        mirror[0] = -1
        let mirrored = try await scene(mirror)
        let (xlo, xhi) = try Self.bounds(mirrored)
        #expect(simdClose(xlo, SIMD3(-hi.x, lo.y, lo.z)) && simdClose(xhi, SIMD3(-lo.x, hi.y, hi.z)))
        #expect(mirrored.nodes.allSatisfy { $0.transform == Node.identity })
        #expect(outwardFraction(mirrored) > 0.99 * outwardFraction(plain))
    }

    @Test("a molecule no longer in the library is left out with a note; the strokes still export")
    func missingMolecule() async throws {
        let (service, cleanup) = try await Self.library()
        defer { Task { await cleanup() } }
        for id in ["9ZZZ", "not/an id"] {
            let state = Self.room(Self.strokes + [.setMolecule(MoleculePlacement(moleculeID: id))])
            let glb = try await service.roomModel(of: state, format: .glb)
            #expect(glb.notes.count == 1 && glb.notes[0].contains("left out"))
            let room = try await service.roomScene(of: state)
            #expect(room.scene.nodes.map(\.name) == ["strokes"])
            #expect(glb.triangles == room.scene.triangleCount && glb.triangles > 5_000)
            let usdz = try await service.roomModel(of: state, format: .usdz)
            #expect(Array(usdz.bytes.prefix(2)) == [0x50, 0x4B] && Array(glb.bytes.prefix(4)) == Array("glTF".utf8))
        }
        // Removed from the library after the room placed it.
        let state = Self.room(Self.strokes + [.setMolecule(MoleculePlacement(moleculeID: "1AKE"))])
        let before = try await service.roomModel(of: state, format: .glb)
        try await service.remove(id: "1AKE")
        let after = try await service.roomModel(of: state, format: .glb)
        #expect(after.notes.first?.contains("no longer in the library") == true)
        #expect(after.triangles < before.triangles && after.key != before.key)
    }

    @Test("an unknown style falls back to auto, none is a cartoon; a placement that flattens the molecule leaves it out")
    func oddPlacements() async throws {
        let (service, cleanup) = try await Self.library()
        defer { Task { await cleanup() } }
        let odd = try await service.roomScene(of: Self.room([.setMolecule(MoleculePlacement(moleculeID: "1AKE", style: "watercolour"))]))
        #expect(odd.notes.count == 1 && odd.notes[0].contains("auto") && odd.scene.triangleCount > 0)
        // No style: a cartoon, as the web app asks for it.
        let unstyled = try await service.roomScene(of: Self.room([.setMolecule(MoleculePlacement(moleculeID: "1AKE", style: ""))]))
        let cartoon = try await service.roomScene(of: Self.room([.setMolecule(MoleculePlacement(moleculeID: "1AKE", style: "cartoon"))]))
        #expect(unstyled.notes.isEmpty && unstyled.scene.meshes == cartoon.scene.meshes)
        var flat = MoleculePlacement.identity
        flat[5] = 0
        let flattened = try await service.roomScene(of: Self.room(Self.strokes + [.setMolecule(MoleculePlacement(moleculeID: "1AKE", transform: flat))]))
        #expect(flattened.notes.count == 1 && flattened.scene.nodes.map(\.name) == ["strokes"])
    }

    @Test("an empty room is a valid file with an empty scene")
    func empty() async throws {
        let (service, cleanup) = try await Self.library()
        defer { Task { await cleanup() } }
        for format in [ModelFormat.glb, .usdz, .obj, .stl, .ply, .dae] {
            let model = try await service.roomModel(of: RoomState(), format: format)
            #expect(model.triangles == 0 && model.notes.isEmpty && !model.bytes.isEmpty)
        }
        let glb = try await service.roomModel(of: RoomState(), format: .glb)
        #expect(Array(glb.bytes.prefix(4)) == Array("glTF".utf8))
        // A room whose strokes were all cleared is empty too.
        let cleared = try await service.roomModel(of: Self.room(Self.strokes + [.clear]), format: .glb)
        #expect(cleared.bytes == glb.bytes && cleared.key == glb.key)
        let usdz = try await service.roomModel(of: RoomState(), format: .usdz)
        #expect(Array(usdz.bytes.prefix(2)) == [0x50, 0x4B])
    }

    @Test("the key follows what is drawn: strokes and molecule, not notes or sequence numbers")
    func keys() async throws {
        let (service, cleanup) = try await Self.library()
        defer { Task { await cleanup() } }
        let base = Self.strokes + [.setMolecule(MoleculePlacement(moleculeID: "1AKE"))]
        let state = Self.room(base)
        let model = try await service.roomModel(of: state, format: .glb)
        #expect(try await service.roomModelKey(of: state, format: .glb) == model.key)
        #expect(try await service.roomModelKey(of: state, format: .usdz) != model.key)
        let noted = Self.room(base + [.addNote(id: "n1", text: "the lid", anchor: .point(RoomPoint(0, 0.3, 0)))])
        #expect(try await service.roomModelKey(of: noted, format: .glb) == model.key)
        let more = Self.room(base + [.extendStroke(id: "dot", points: [RoomPoint(0.45, 0.3, 0.1)])])
        #expect(try await service.roomModelKey(of: more, format: .glb) != model.key)
        let moved = Self.room(base + [.setMolecule(MoleculePlacement(moleculeID: "1AKE", transform: Self.placement(t: (0, 0.01, 0))))])
        #expect(try await service.roomModelKey(of: moved, format: .glb) != model.key)
        let restyled = Self.room(base + [.setMolecule(MoleculePlacement(moleculeID: "1AKE", style: "surface"))])
        #expect(try await service.roomModelKey(of: restyled, format: .glb) != model.key)
    }
}

private func simdClose(_ a: SIMD3<Float>, _ b: SIMD3<Float>, tolerance: Float = 1e-4) -> Bool {
    let d = a - b
    return abs(d.x) <= tolerance && abs(d.y) <= tolerance && abs(d.z) <= tolerance
}

/// Share of triangles (over every placed mesh) whose corners' normals agree with the way they wind,
/// with node transforms applied.
private func outwardFraction(_ scene: TriangleScene) -> Double {
    func cross(_ a: SIMD3<Float>, _ b: SIMD3<Float>) -> SIMD3<Float> {
        SIMD3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
    }
    var agree = 0, total = 0
    for node in scene.nodes {
        let mesh = scene.meshes[node.mesh], m = node.transform
        let c0 = SIMD3(m[0], m[1], m[2]), c1 = SIMD3(m[4], m[5], m[6]), c2 = SIMD3(m[8], m[9], m[10])
        let flip: Float = (c0 * cross(c1, c2)).sum() < 0 ? -1 : 1
        for t in 0..<mesh.triangleCount {
            let i = (0..<3).map { Int(mesh.indices[3 * t + $0]) }
            let p = i.map { c0 * mesh.positions[$0].x + c1 * mesh.positions[$0].y + c2 * mesh.positions[$0].z }
            let n = i.map { c0 * mesh.normals[$0].x + c1 * mesh.normals[$0].y + c2 * mesh.normals[$0].z }
            if (cross(p[1] - p[0], p[2] - p[0]) * (n[0] + n[1] + n[2])).sum() * flip > 0 { agree += 1 }
            total += 1
        }
    }
    return total == 0 ? 0 : Double(agree) / Double(total)
}
