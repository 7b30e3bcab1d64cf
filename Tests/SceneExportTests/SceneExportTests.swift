import Foundation
import Testing
@testable import SceneExport

// Sample scenes covering the writers' cases: a cube, a sphere with vertex colours, two parts with two
// materials, one mesh placed by 60 nodes (and the same baked), a mixed scene with a mirrored
// placement, a messy scene that fails validation, and an empty one.

func rotationY(_ angle: Float, translate t: SIMD3<Float>, scale s: Float = 1) -> [Float] {
    let c = Float(cos(Double(angle))) * s, sn = Float(sin(Double(angle))) * s
    return [c, 0, -sn, 0,  0, s, 0, 0,  sn, 0, c, 0,  t.x, t.y, t.z, 1]
}
func rotationAxis(_ axis: SIMD3<Float>, _ angle: Float, translate t: SIMD3<Float>) -> [Float] {
    let a = axis / (axis * axis).sum().squareRoot()
    let c = Float(cos(Double(angle))), s = Float(sin(Double(angle))), C = 1 - c
    let (x, y, z) = (a.x, a.y, a.z)
    // column-major
    return [x*x*C + c, y*x*C + z*s, z*x*C - y*s, 0,
            x*y*C - z*s, y*y*C + c, z*y*C + x*s, 0,
            x*z*C + y*s, y*z*C - x*s, z*z*C + c, 0,
            t.x, t.y, t.z, 1]
}

func cube(_ name: String, size: Float, twoParts: Bool) -> TriangleMesh {
    var m = TriangleMesh(name: name)
    let h = size / 2
    let faces: [(SIMD3<Float>, SIMD3<Float>, SIMD3<Float>)] = [
        (SIMD3(1,0,0), SIMD3(0,1,0), SIMD3(0,0,1)), (SIMD3(-1,0,0), SIMD3(0,0,1), SIMD3(0,1,0)),
        (SIMD3(0,1,0), SIMD3(0,0,1), SIMD3(1,0,0)), (SIMD3(0,-1,0), SIMD3(1,0,0), SIMD3(0,0,1)),
        (SIMD3(0,0,1), SIMD3(1,0,0), SIMD3(0,1,0)), (SIMD3(0,0,-1), SIMD3(0,1,0), SIMD3(1,0,0)),
    ]
    for (n, u, v) in faces {
        let b = UInt32(m.positions.count)
        for (su, sv) in [(-1, -1), (1, -1), (1, 1), (-1, 1)] as [(Float, Float)] {
            m.positions.append((n + u * su + v * sv) * h); m.normals.append(n)
        }
        m.indices += [b, b + 1, b + 2, b, b + 2, b + 3]
    }
    m.parts = twoParts ? [.init(triangles: 0..<6, material: 0), .init(triangles: 6..<12, material: 1)]
                       : [.init(triangles: 0..<12, material: 0)]
    return m
}

func sphere(_ name: String, radius: Float, rings: Int, segments: Int, colors: Bool, center: SIMD3<Float> = .zero) -> TriangleMesh {
    var m = TriangleMesh(name: name)
    for r in 0...rings {
        let th = Double(r) / Double(rings) * Double.pi
        for s in 0...segments {
            let ph = Double(s) / Double(segments) * 2 * Double.pi
            let n = SIMD3<Float>(Float(sin(th) * cos(ph)), Float(cos(th)), Float(sin(th) * sin(ph)))
            m.positions.append(center + n * radius); m.normals.append(n)
            if colors { m.colors.append(SIMD4(Float(r) / Float(rings), Float(s) / Float(segments), 0.3, 1)) }
        }
    }
    let w = UInt32(segments + 1)
    for r in 0..<UInt32(rings) { for s in 0..<UInt32(segments) {
        let a = r * w + s, b = a + w
        m.indices += [a, a + 1, b, a + 1, b + 1, b]
    } }
    m.parts = [.init(triangles: 0..<m.triangleCount, material: 0)]
    return m
}


func sampleScenes() -> [(String, TriangleScene)] {
    let mats = [Material(name: "Red <&> \"one\"", baseColor: SIMD4(0.8, 0.05, 0.05, 1), metallic: 0, roughness: 0.4),
                Material(name: "blue glass", baseColor: SIMD4(0.1, 0.2, 0.9, 0.5), metallic: 0.1, roughness: 0.1),
                Material(name: "white", baseColor: SIMD4(1, 1, 1, 1))]

    var scenes: [(String, TriangleScene)] = []
    do {
        var s = TriangleScene(name: "cube"); s.materials = mats
        s.meshes = [cube("cube", size: 0.1, twoParts: false)]; s.nodes = [Node(name: "cube", mesh: 0)]
        scenes.append(("cube", s))
    }
    do {
        var s = TriangleScene(name: "sphere colours"); s.materials = mats
        var m = sphere("sphere", radius: 0.05, rings: 24, segments: 48, colors: true); m.parts[0].material = 2
        s.meshes = [m]; s.nodes = [Node(name: "sphere node", mesh: 0, transform: rotationY(0.3, translate: SIMD3(0.1, 0, 0)))]
        scenes.append(("sphere", s))
    }
    do {
        var s = TriangleScene(name: "two parts"); s.materials = mats
        s.meshes = [cube("two-part cube", size: 0.1, twoParts: true)]; s.nodes = [Node(name: "cube", mesh: 0)]
        scenes.append(("twoparts", s))
    }
    func instancedScene(_ n: Int, rings: Int = 16, segments: Int = 32) -> TriangleScene {
        var s = TriangleScene(name: "instanced"); s.materials = mats
        s.meshes = [sphere("ball", radius: 0.01, rings: rings, segments: segments, colors: false), TriangleMesh(name: "empty")]
        for i in 0..<n {
            let ang = Float(i) / Float(n) * 2 * .pi
            s.nodes.append(Node(name: "ball \(i)", mesh: 0, transform: rotationAxis(SIMD3(1, 2, 3), ang * 3, translate: SIMD3(0.2 * cos(ang), 0.02 * Float(i % 5), 0.2 * sin(ang)))))
        }
        s.nodes.append(Node(name: "nothing", mesh: 1))
        return s
    }
    scenes.append(("instanced", instancedScene(60)))
    do {  // the same, baked: 60 meshes each placed by an identity node
        let inst = instancedScene(60)
        var s = TriangleScene(name: "baked"); s.materials = mats
        for (k, node) in inst.nodes.prefix(60).enumerated() {
            var m = inst.meshes[0]; m.name = "ball \(k)"
            let t = node.transform
            m.positions = m.positions.map { p in SIMD3(t[0]*p.x + t[4]*p.y + t[8]*p.z + t[12], t[1]*p.x + t[5]*p.y + t[9]*p.z + t[13], t[2]*p.x + t[6]*p.y + t[10]*p.z + t[14]) }
            m.normals = m.normals.map { p in SIMD3(t[0]*p.x + t[4]*p.y + t[8]*p.z, t[1]*p.x + t[5]*p.y + t[9]*p.z, t[2]*p.x + t[6]*p.y + t[10]*p.z) }
            s.meshes.append(m); s.nodes.append(Node(name: "ball \(k)", mesh: k))
        }
        scenes.append(("baked", s))
    }
    do {  // mixed: coloured + two-part + mirrored instance + empty mesh + out-of-range stuff
        var s = TriangleScene(name: "mixed"); s.materials = mats
        var sp = sphere("coloured ball", radius: 0.03, rings: 8, segments: 16, colors: true)
        sp.parts = [.init(triangles: 0..<100, material: 0), .init(triangles: 100..<sp.triangleCount, material: 1)]
        s.meshes = [cube("cube2", size: 0.05, twoParts: true), sp, TriangleMesh(name: "empty")]
        s.nodes = [Node(name: "c", mesh: 0, transform: rotationY(0.5, translate: SIMD3(0, 0.1, 0))),
                   Node(name: "mirrored c", mesh: 0, transform: [-1,0,0,0, 0,1,0,0, 0,0,1,0, 0.2,0,0,1]),
                   Node(name: "ball", mesh: 1, transform: rotationY(1, translate: SIMD3(0, 0, 0.1), scale: 2)),
                   Node(name: "empty", mesh: 2)]
        scenes.append(("mixed", s))
    }
    do {  // messy: fails validate, writers must still produce valid files
        var s = TriangleScene(name: "messy\nname \u{01}<x>"); s.materials = mats
        var tri = TriangleMesh(name: "one triangle")  // odd index count -> ushort padding
        tri.positions = [SIMD3(0, 0, 0), SIMD3(0.1, 0, 0), SIMD3(0, 0.1, 0)]
        tri.normals = [SIMD3(0, 0, 2), SIMD3(0, 0, 0), SIMD3(.nan, 0, 1)]  // not unit, zero, NaN
        tri.indices = [0, 1, 2]
        tri.parts = [.init(triangles: 0..<1, material: 7)]  // material out of range -> default
        var nonormals = cube("no normals", size: 0.05, twoParts: true)
        nonormals.normals = []; nonormals.positions[0].x = .infinity
        nonormals.parts = [.init(triangles: 8..<20, material: 1), .init(triangles: 0..<4, material: 0)]  // gap, overrun, unsorted
        var badIndex = cube("bad index", size: 0.05, twoParts: false); badIndex.indices[4] = 1000
        var noParts = cube("no parts", size: 0.03, twoParts: false); noParts.parts = []
        var badColors = sphere("bad colours", radius: 0.02, rings: 4, segments: 8, colors: true)
        badColors.colors[0] = SIMD4(2, -1, .nan, 0.5)
        s.meshes = [tri, nonormals, badIndex, noParts, badColors]
        s.nodes = [Node(name: "tri", mesh: 0), Node(name: "nn", mesh: 1, transform: rotationY(0.1, translate: SIMD3(0.1, 0, 0))),
                   Node(name: "bad", mesh: 2), Node(name: "np", mesh: 3, transform: rotationY(0, translate: SIMD3(0, 0.1, 0))),
                   Node(name: "bc", mesh: 4, transform: rotationY(0, translate: SIMD3(0, 0, 0.1))),
                   Node(name: "short transform", mesh: 0, transform: [1, 2, 3]), Node(name: "no mesh", mesh: 42),
                   Node(name: "nan transform", mesh: 0, transform: [Float](repeating: .nan, count: 16))]
        scenes.append(("messy", s))
    }
    do {  // frames: an ensemble's models one after another (GLB: an animation)
        var s = TriangleScene(name: "frames"); s.materials = mats
        s.meshes = [cube("frame 1", size: 0.1, twoParts: false), sphere("frame 2", radius: 0.05, rings: 8, segments: 16, colors: true)]
        s.nodes = [Node(name: "cube", mesh: 0), Node(name: "ball", mesh: 1, transform: rotationY(0, translate: SIMD3(0.05, 0, 0)))]
        s.frames = [[0], [1]]
        scenes.append(("frames", s))
    }
    scenes.append(("empty", TriangleScene(name: "empty")))

    return scenes
}

/// Where the samples go, for `scripts/test` to hand to the independent checkers.
let samplesDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent(".build/export-samples")

@Suite("Scene writers")
struct SceneExportTests {
    @Test("every format writes every sample scene (files left for the checkers)")
    func writeSamples() throws {
        try FileManager.default.createDirectory(at: samplesDirectory, withIntermediateDirectories: true)
        for (name, scene) in sampleScenes() {
            func save(_ ext: String, _ bytes: [UInt8]) throws {
                try Data(bytes).write(to: samplesDirectory.appendingPathComponent("\(name).\(ext)"))
            }
            try save("glb", GLBWriter.write(scene))
            try save("meshopt.glb", GLBWriter.write(scene, encoding: .meshopt))
            try save("float.glb", GLBWriter.write(scene, encoding: .float))
            try save("usdz", USDZWriter.write(scene))
            // The same layer as text, for check-usd-layers.py (usd-core compares the two).
            try save("text.usdz", USDZWriter.write(scene, options: .init(layerFormat: .text)))
            let obj = OBJWriter.write(scene, mtlFileName: "\(name).mtl")
            try save("obj", obj.obj)
            try save("mtl", obj.mtl)
            try save("stl", STLWriter.write(scene))
            try save("ply", PLYWriter.write(scene))
            try save("dae", DAEWriter.write(scene))
        }
    }

    @Test("output is deterministic")
    func deterministic() {
        for (_, scene) in sampleScenes() {
            #expect(GLBWriter.write(scene) == GLBWriter.write(scene))
            #expect(USDZWriter.write(scene) == USDZWriter.write(scene))
            #expect(DAEWriter.write(scene) == DAEWriter.write(scene))
        }
    }

    @Test("GLB container: magic, version, length, aligned chunks")
    func glbLayout() throws {
        let scene = try #require(sampleScenes().first { $0.0 == "sphere" }?.1)
        let b = GLBWriter.write(scene)
        func u32(_ o: Int) -> UInt32 { UInt32(b[o]) | UInt32(b[o + 1]) << 8 | UInt32(b[o + 2]) << 16 | UInt32(b[o + 3]) << 24 }
        #expect(Array(b[0..<4]) == Array("glTF".utf8))
        #expect(u32(4) == 2)
        #expect(Int(u32(8)) == b.count)
        let jsonLength = Int(u32(12))
        #expect(jsonLength % 4 == 0)
        #expect(u32(16) == 0x4E4F534A)
        #expect(u32(20 + jsonLength + 4) == 0x004E4942)
    }

    @Test("instancing: a mesh placed by 60 nodes costs little more than one copy")
    func instancing() throws {
        let scenes = sampleScenes()
        let instanced = try #require(scenes.first { $0.0 == "instanced" }?.1)
        let baked = try #require(scenes.first { $0.0 == "baked" }?.1)
        #expect(GLBWriter.write(instanced).count * 10 < GLBWriter.write(baked).count)
        #expect(USDZWriter.write(instanced).count * 10 < USDZWriter.write(baked).count)
    }

    @Test("USDZ: stored zip, every file's data 64-byte aligned, root layer first")
    func usdzLayout() throws {
        let scene = try #require(sampleScenes().first { $0.0 == "mixed" }?.1)
        let b = USDZWriter.write(scene)
        var offset = 0
        var names: [String] = []
        func u16(_ o: Int) -> Int { Int(b[o]) | Int(b[o + 1]) << 8 }
        func u32(_ o: Int) -> Int { u16(o) | u16(o + 2) << 16 }
        while offset + 30 <= b.count, u32(offset) == 0x04034B50 {
            #expect(u16(offset + 8) == 0)  // stored, not deflated
            let nameLength = u16(offset + 26), extraLength = u16(offset + 28)
            names.append(String(decoding: b[(offset + 30)..<(offset + 30 + nameLength)], as: UTF8.self))
            let data = offset + 30 + nameLength + extraLength
            #expect(data % 64 == 0)
            offset = data + u32(offset + 18)
        }
        #expect(names.first == USDZWriter.rootLayerName)
    }

    @Test("validate() lists what is wrong with a messy scene; writers still cope")
    func validation() throws {
        let messy = try #require(sampleScenes().first { $0.0 == "messy" }?.1)
        #expect(throws: SceneValidationError.self) { try messy.validate() }
        for (name, scene) in sampleScenes() where name != "messy" { #expect(throws: Never.self) { try scene.validate() } }
    }
}
