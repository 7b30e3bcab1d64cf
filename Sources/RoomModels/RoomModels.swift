import Crypto
import Geometry
import MoleculeLibrary
import MoleculeMesh
import Rooms
import SceneExport
import Storage

/// A room as a model file: its strokes as tubes and its molecule where the room placed it.
public struct RoomModel: Sendable, Equatable {
    /// A strong validator (ETag) for these bytes: the same as `LibraryService.roomModelKey`.
    public var key: String
    public var mediaType: String
    public var bytes: [UInt8]
    /// Triangles drawn (strokes and molecule, every placed copy).
    public var triangles: Int
    /// What was left out or simplified, in words (e.g. a molecule no longer in the library).
    public var notes: [String]
    public init(key: String, mediaType: String, bytes: [UInt8], triangles: Int, notes: [String]) {
        self.key = key; self.mediaType = mediaType; self.bytes = bytes; self.triangles = triangles; self.notes = notes
    }
}

/// A room as a scene for the writers (or the renderer), with the notes of `RoomModel`.
public struct RoomScene: Sendable {
    public var scene: TriangleScene
    public var notes: [String]
    public init(scene: TriangleScene, notes: [String]) { self.scene = scene; self.notes = notes }
}

/// Rooms as AR models, for `GET /api/rooms/{id}/model.usdz` and `model.glb`.
///
/// - Coordinates: the room's metres are the scene's (Y up), no recentring or scaling.
/// - Strokes: tubes whose diameter is the stroke's width, in the stroke's colour (see
///   `StrokeTubes`), simplified past `roomStrokeTriangleLimit` triangles.
/// - The molecule: exactly the model `GET /api/molecules/{id}/model.glb?style={style}` serves (its
///   default options: longest side 0.3 m, centred over the origin, resting on y = 0, water hidden;
///   an empty style is `cartoon`), then moved by the placement's matrix (column-major, room
///   coordinates), as the room screen of the web app (js/room-view.js) shows it. So the identity
///   placement stands the molecule, 30 cm long, on the room's origin, as the model viewer shows it.
///   A similarity (rotation, uniform scale, translation) is composed into the nodes; any other
///   matrix (mirroring, shear, non-uniform scale) is baked into the vertices with normals and
///   winding corrected, since glTF and AR Quick Look want decomposable transforms. The bottom row
///   is taken as 0 0 0 1.
/// - Left out, with a note, while the strokes are still exported: a molecule id that is no longer
///   in the library (or not a library id), a molecule whose file cannot be read or drawn, and a
///   placement that is not 16 finite numbers or flattens the molecule (determinant ≈ 0). An
///   unknown style falls back to `auto`, and a style that cannot draw this molecule (a cartoon of
///   a ligand alone) falls back to `auto` too.
/// - Notes (text notes pinned in the room) are not drawn.
/// - An empty room gives a valid file with an empty scene.
///
/// Room models are not kept in the library's model cache (its rows belong to molecules, and a room
/// changes with every stroke); identical exports running at once share one build, and the last
/// few molecule scenes are kept in memory, so exporting a room again after a stroke only redoes
/// the strokes. The key (ETag) depends on the strokes, the placement, the molecule's file hash and
/// the engine version, not on notes or the room's sequence number.
extension LibraryService {
    /// Most triangles the strokes of one room may take together (the molecule keeps its own
    /// budget, `MoleculeSceneOptions.maxTriangles`).
    public static let roomStrokeTriangleLimit = 200_000

    /// The room as a model file in `format` (OBJ refers to its materials as `room.mtl`).
    /// Identical requests made at the same time share one export: only the one that starts it
    /// passes `admission`.
    public func roomModel(of state: RoomState, format: ModelFormat, admission: some Admission = AdmitAll()) async throws -> RoomModel {
        let (molecule, early) = try await roomMolecule(state)
        let key = try await WorkLimiter.offload { Self.roomModelKey(state, format: format, moleculeFileHash: molecule?.1.fileHash) }
        return try await Self.roomExports.run(key, admission: admission, progress: nil) { [self] _ in
            try await limiter.withSlot { [self] in
                let built = try await roomScene(state, molecule: molecule, notes: early)
                let bytes = try await WorkLimiter.offload { format.encode(built.scene, mtlFileName: "room.mtl") }
                return RoomModel(key: key, mediaType: format.mediaType, bytes: bytes, triangles: built.scene.triangleCount,
                                 notes: built.notes)
            }
        }
    }

    /// The key `roomModel` would give its answer, without building it: for answering
    /// `If-None-Match` before doing the work.
    public func roomModelKey(of state: RoomState, format: ModelFormat) async throws -> String {
        let (molecule, _) = try await roomMolecule(state)
        return try await WorkLimiter.offload { Self.roomModelKey(state, format: format, moleculeFileHash: molecule?.1.fileHash) }
    }

    /// The room as a scene (for a picture, or another writer).
    public func roomScene(of state: RoomState) async throws -> RoomScene {
        let (molecule, early) = try await roomMolecule(state)
        return try await limiter.withSlot { [self] in try await roomScene(state, molecule: molecule, notes: early) }
    }

    // MARK: Building

    /// Room models being built, shared by identical requests (the key covers everything drawn).
    private static let roomExports = SharedWork<RoomModel>()
    /// The last few molecule scenes built for rooms.
    private static let roomMoleculeScenes = MoleculeSceneMemo(capacity: 3)

    /// The room's placement and the library's record for its molecule, or nil with a note when the
    /// molecule is left out (not a library id, or no longer in the library).
    private func roomMolecule(_ state: RoomState) async throws -> ((MoleculePlacement, MoleculeRecord)?, [String]) {
        guard let placement = state.molecule else { return (nil, []) }
        let id = placement.moleculeID
        guard (try? Self.checkLibraryID(id)) != nil else {
            return (nil, ["molecule '\(id.prefix(64))' is not a library id; left out"])
        }
        guard let record = try await self.record(id: id) else {
            return (nil, ["molecule \(id) is no longer in the library; left out, the strokes exported without it"])
        }
        return ((placement, record), [])
    }

    /// Builds the scene; the caller holds a worker slot.
    private func roomScene(_ state: RoomState, molecule: (MoleculePlacement, MoleculeRecord)?, notes early: [String]) async throws -> RoomScene {
        var notes = early
        var placed: (TriangleScene, [Double])?
        if case let (placement, record)? = molecule {
            let (request, styleNote) = Self.moleculeRequest(style: placement.style)
            if let styleNote { notes.append(styleNote) }
            let memoKey = "\(record.fileHash)|\(request.canonical)"
            var built = await Self.roomMoleculeScenes.get(memoKey)
            if built == nil {
                do {
                    let (_, plain) = try await originalFile(id: record.id)
                    built = try await WorkLimiter.offload { Self.moleculeScene(plain, id: record.id, request: request) }
                } catch let error as LibraryError {
                    built = (nil, ["molecule \(record.id) could not be read (\(error)); left out"])
                }
                if let built { await Self.roomMoleculeScenes.put(memoKey, built) }
            }
            if case let (scene, more)? = built {
                notes += more
                if let scene { placed = (scene, placement.transform) }
            }
        }
        let strokes = state.strokes
        let molecule = placed
        let (scene, more) = try await WorkLimiter.offload { Self.composeRoom(strokes: strokes, molecule: molecule) }
        return RoomScene(scene: scene, notes: notes + more)
    }

    /// Options as the model URL `?style=…` would give them (an empty style is `cartoon`, as the web
    /// app asks for it); an unknown style falls back to `auto`.
    static func moleculeRequest(style: String) -> (ModelRequest, String?) {
        let style = style.isEmpty ? "cartoon" : style
        if let request = try? ModelRequest(format: .glb, parameters: ["style": style]) { return (request, nil) }
        return (ModelRequest(format: .glb), "style '\(style.prefix(40))' is not one the library draws; the molecule is drawn as auto")
    }

    /// The molecule's scene as its model URL serves it, or nil and why not.
    static func moleculeScene(_ plain: [UInt8], id: String, request: ModelRequest) -> (TriangleScene?, [String]) {
        do {
            return (try scene(plain, fileName: id, options: request.options).0, [])
        } catch LibraryError.badRequest(let error) {
            guard request.options.representation != .auto else { return (nil, ["molecule \(id) cannot be drawn (\(error)); left out"]) }
            var fallback = request.options
            fallback.representation = .auto
            if let scene = try? scene(plain, fileName: id, options: fallback).0 {
                return (scene, ["molecule \(id) cannot be drawn as \(request.options.representation.rawValue) (\(error)); drawn as auto"])
            }
            return (nil, ["molecule \(id) cannot be drawn (\(error)); left out"])
        } catch {
            return (nil, ["molecule \(id) could not be read (\(error)); left out"])
        }
    }

    /// Strokes and the placed molecule in one scene: the molecule's materials and meshes first,
    /// then the strokes' mesh with its own material.
    static func composeRoom(strokes: [Stroke], molecule: (TriangleScene, [Double])?) -> (TriangleScene, [String]) {
        var notes: [String] = []
        var scene = TriangleScene(name: "room")
        if case let (model, matrix)? = molecule {
            if let placement = RoomPlacement(matrix) {
                if !placement.affineBottomRow { notes.append("the placement's bottom row is not 0 0 0 1; taken as if it were") }
                place(model, by: placement, into: &scene)
            } else {
                notes.append("the molecule's placement is not 16 finite numbers, or flattens it; molecule left out")
            }
        }

        var colors: [String: SIMD4<Float>] = [:]
        var tubes: [StrokeTube] = []
        tubes.reserveCapacity(strokes.count)
        for stroke in strokes {
            let color: SIMD4<Float>
            if let c = colors[stroke.color] { color = c } else {
                color = StrokeTubes.linearColor(hex: stroke.color) ?? SIMD4(0.5, 0.5, 0.5, 1)
                colors[stroke.color] = color
            }
            tubes.append(StrokeTube(points: stroke.points.map { SIMD3(Float($0.x), Float($0.y), Float($0.z)) },
                                    width: Float(stroke.width), color: color))
        }
        let (drawn, report) = StrokeTubes.scene(tubes, options: StrokeTubeOptions(maxTriangles: roomStrokeTriangleLimit))
        notes += report.notes
        if report.skipped > 0 { notes.append("\(report.skipped) stroke\(report.skipped == 1 ? "" : "s") without a drawable point or width left out") }
        if let mesh = drawn.meshes.first {
            var mesh = mesh
            let material = scene.materials.count
            scene.materials += drawn.materials
            for k in mesh.parts.indices { mesh.parts[k].material += material }
            scene.nodes.append(Node(name: "strokes", mesh: scene.meshes.count))
            scene.meshes.append(mesh)
        }
        return (scene, notes)
    }

    /// Appends `model`'s materials, meshes and nodes to `scene`, moved by `placement`.
    static func place(_ model: TriangleScene, by placement: RoomPlacement, into scene: inout TriangleScene) {
        let materialBase = scene.materials.count
        scene.materials += model.materials
        func rebased(_ mesh: TriangleMesh) -> TriangleMesh {
            var m = mesh
            for k in m.parts.indices { m.parts[k].material += materialBase }
            return m
        }
        if placement.isSimilarity {
            let meshBase = scene.meshes.count
            scene.meshes += model.meshes.map(rebased)
            for node in model.nodes where node.mesh >= 0 && node.mesh < model.meshes.count && node.transform.count == 16 {
                scene.nodes.append(Node(name: "molecule-\(node.name)", mesh: meshBase + node.mesh,
                                        transform: placement.composed(with: node.transform)))
            }
        } else {
            // Baked: one copy of the mesh per node, in room coordinates.
            for node in model.nodes where node.mesh >= 0 && node.mesh < model.meshes.count && node.transform.count == 16 {
                let baked = RoomPlacement.bake(rebased(model.meshes[node.mesh]), by: placement.composed(with: node.transform))
                scene.nodes.append(Node(name: "molecule-\(node.name)", mesh: scene.meshes.count))
                scene.meshes.append(baked)
            }
        }
    }

    /// Hash of everything a room model shows: format, engine, strokes, placement, molecule file.
    static func roomModelKey(_ state: RoomState, format: ModelFormat, moleculeFileHash: String?) -> String {
        var hasher = SHA256()
        var buffer: [UInt8] = []
        buffer.reserveCapacity(1 << 16)
        func flush() { hasher.update(data: buffer); buffer.removeAll(keepingCapacity: true) }
        func text(_ s: String) { buffer += Array(s.utf8); buffer.append(0) }
        func number(_ x: Double) { withUnsafeBytes(of: x.bitPattern.littleEndian) { buffer += $0 } }
        func count(_ n: Int) { withUnsafeBytes(of: UInt64(n).littleEndian) { buffer += $0 } }
        text("room-model-1"); text(engineVersion); text(format.rawValue); count(roomStrokeTriangleLimit)
        if let placement = state.molecule, let hash = moleculeFileHash {
            text(placement.moleculeID); text(placement.style); text(hash)
            count(placement.transform.count)
            for x in placement.transform { number(x) }
        } else {
            text(state.molecule.map { "missing:\($0.moleculeID)" } ?? "none")
        }
        count(state.strokes.count)
        for stroke in state.strokes {
            text(stroke.color); number(stroke.width); count(stroke.points.count)
            for p in stroke.points {
                number(p.x); number(p.y); number(p.z)
                if buffer.count >= 1 << 16 { flush() }
            }
        }
        flush()
        return Hashing.hex(hasher.finalize())
    }
}

/// A placement matrix read as an affine transform (bottom row ignored), with what exporting needs.
struct RoomPlacement {
    /// Column-major, bottom row 0 0 0 1.
    var matrix: [Double]
    var affineBottomRow: Bool
    /// Rotation times a positive uniform scale, plus a translation: node transforms may carry it.
    var isSimilarity: Bool

    init?(_ m: [Double]) {
        guard m.count == 16, m.allSatisfy({ $0.isFinite }) else { return nil }
        affineBottomRow = m[3] == 0 && m[7] == 0 && m[11] == 0 && m[15] == 1
        var a = m
        a[3] = 0; a[7] = 0; a[11] = 0; a[15] = 1
        matrix = a
        let c0 = SIMD3(a[0], a[1], a[2]), c1 = SIMD3(a[4], a[5], a[6]), c2 = SIMD3(a[8], a[9], a[10])
        let det = dot(c0, cross(c1, c2))
        let l0 = dot(c0, c0), l1 = dot(c1, c1), l2 = dot(c2, c2)
        let scale2 = max(l0, l1, l2)
        // Flattened (or nearly): nothing would show, and normals would be undefined.
        guard scale2 > 0, abs(det) > 1e-9 * scale2 * scale2.squareRoot() else { return nil }
        let tolerance = 1e-5 * scale2
        isSimilarity = det > 0 && abs(l0 - l1) <= tolerance && abs(l1 - l2) <= tolerance && abs(l0 - l2) <= tolerance
            && abs(dot(c0, c1)) <= tolerance && abs(dot(c1, c2)) <= tolerance && abs(dot(c0, c2)) <= tolerance
    }

    /// This matrix times `t` (column-major, both affine), as a node transform.
    func composed(with t: [Float]) -> [Float] {
        var out = [Float](repeating: 0, count: 16)
        for column in 0..<4 {
            for row in 0..<4 {
                var sum = 0.0
                for k in 0..<4 { sum += matrix[k * 4 + row] * Double(t[column * 4 + k]) }
                out[column * 4 + row] = Float(sum)
            }
        }
        out[3] = 0; out[7] = 0; out[11] = 0; out[15] = 1
        return out
    }

    /// `mesh` with `m` applied to its vertices: positions, normals by the inverse transpose, and
    /// triangles turned over when `m` mirrors, so they still face outwards.
    static func bake(_ mesh: TriangleMesh, by m: [Float]) -> TriangleMesh {
        let c0 = SIMD3(m[0], m[1], m[2]), c1 = SIMD3(m[4], m[5], m[6]), c2 = SIMD3(m[8], m[9], m[10])
        let t = SIMD3(m[12], m[13], m[14])
        let det = (c0 * cross(c1, c2)).sum()
        let sign: Float = det < 0 ? -1 : 1
        // Columns of det·M⁻ᵀ, signed so normals keep pointing outwards.
        let n0 = cross(c1, c2) * sign, n1 = cross(c2, c0) * sign, n2 = cross(c0, c1) * sign
        var out = mesh
        out.positions = mesh.positions.map { p in c0 * p.x + c1 * p.y + c2 * p.z + t }
        out.normals = mesh.normals.map { n in
            let v = n0 * n.x + n1 * n.y + n2 * n.z
            let l2 = (v * v).sum()
            return l2 > 1e-30 && l2.isFinite ? v / l2.squareRoot() : n
        }
        if det < 0 {
            for k in stride(from: 0, to: out.indices.count - 2, by: 3) { out.indices.swapAt(k + 1, k + 2) }
        }
        return out
    }
}

/// The last few molecule scenes built for rooms, by file hash and options (least recently used
/// dropped first). A failed build is remembered too, with its notes, so it is not retried per stroke.
actor MoleculeSceneMemo {
    typealias Entry = (TriangleScene?, [String])
    private let capacity: Int
    private var entries: [(key: String, value: Entry)] = []

    init(capacity: Int) { self.capacity = capacity }

    func get(_ key: String) -> Entry? {
        guard let i = entries.firstIndex(where: { $0.key == key }) else { return nil }
        let hit = entries.remove(at: i)
        entries.append(hit)
        return hit.value
    }

    func put(_ key: String, _ value: Entry) {
        entries.removeAll { $0.key == key }
        entries.append((key, value))
        if entries.count > capacity { entries.removeFirst(entries.count - capacity) }
    }
}
