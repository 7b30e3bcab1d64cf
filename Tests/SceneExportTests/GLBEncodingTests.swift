import CMeshOptimizer
import Foundation
import Testing
@testable import SceneExport

/// The GLB's three encodings: the same scene, quantised (KHR_mesh_quantization) and compressed
/// (EXT_meshopt_compression, decoded here with meshoptimizer's own decoder) or plain floats.
/// check-models.py loads the sample files of each in trimesh, pygltflib and assimp.
@Suite("GLB encodings")
struct GLBEncodingTests {
    struct Parsed {
        var json: [String: Any]
        var bin: [UInt8]
        var views: [[String: Any]] { json["bufferViews"] as? [[String: Any]] ?? [] }
        var accessors: [[String: Any]] { json["accessors"] as? [[String: Any]] ?? [] }
        var nodes: [[String: Any]] { json["nodes"] as? [[String: Any]] ?? [] }
    }

    func parse(_ b: [UInt8]) throws -> Parsed {
        func u32(_ o: Int) -> Int { Int(b[o]) | Int(b[o + 1]) << 8 | Int(b[o + 2]) << 16 | Int(b[o + 3]) << 24 }
        let jsonLength = u32(12)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(b[20..<(20 + jsonLength)])) as? [String: Any])
        let bin = 20 + jsonLength + 8 <= b.count ? Array(b[(20 + jsonLength + 8)...]) : []
        return Parsed(json: json, bin: bin)
    }

    /// A view's bytes: straight from the BIN chunk, or decoded with meshoptimizer.
    func viewBytes(_ p: Parsed, _ index: Int) throws -> [UInt8] {
        let view = p.views[index]
        let length = try #require(view["byteLength"] as? Int)
        guard let ext = (view["extensions"] as? [String: Any])?["EXT_meshopt_compression"] as? [String: Any] else {
            let offset = view["byteOffset"] as? Int ?? 0
            return Array(p.bin[offset..<(offset + length)])
        }
        let count = try #require(ext["count"] as? Int), stride = try #require(ext["byteStride"] as? Int)
        let offset = ext["byteOffset"] as? Int ?? 0, size = try #require(ext["byteLength"] as? Int)
        let source = Array(p.bin[offset..<(offset + size)])
        var out = [UInt8](repeating: 0, count: count * stride)
        #expect(count * stride == length)
        let rc = out.withUnsafeMutableBytes { o in
            source.withUnsafeBufferPointer { s in
                ext["mode"] as? String == "TRIANGLES"
                    ? meshopt_decodeIndexBuffer(o.baseAddress, count, stride, s.baseAddress, s.count)
                    : meshopt_decodeVertexBuffer(o.baseAddress, count, stride, s.baseAddress, s.count)
            }
        }
        #expect(rc == 0, "view \(index) decodes")
        if ext["filter"] as? String == "OCTAHEDRAL" {
            out.withUnsafeMutableBytes { meshopt_decodeFilterOct($0.baseAddress, count, stride) }
        }
        return out
    }

    @Test("quantised: 14-bit positions with integer bounds and a dequantising node matrix, byte normals, the extension required")
    func quantized() throws {
        for (name, scene) in sampleScenes() where name != "empty" && name != "messy" {
            let q = try parse(GLBWriter.write(scene, encoding: .quantized))
            let f = try parse(GLBWriter.write(scene, encoding: .float))
            #expect(q.json["extensionsRequired"] as? [String] == ["KHR_mesh_quantization"], "\(name)")
            #expect(f.json["extensionsUsed"] == nil, "\(name)")
            let position = q.accessors[0]
            #expect(position["componentType"] as? Int == 5123 && q.accessors[1]["componentType"] as? Int == 5120)
            #expect(q.accessors[1]["normalized"] as? Bool == true)
            let maxima = try #require(position["max"] as? [Int])
            #expect(maxima.max() == (1 << GLBWriter.positionBits) - 1, "\(name): the longest side uses the whole grid")
            #expect(q.views[0]["byteStride"] as? Int == 8 && q.views[1]["byteStride"] as? Int == 4)
            // Every node's matrix takes the grid back to the float file's coordinates: the box of
            // the first mesh, dequantised, is the float accessor's box within half a step.
            let m = try #require(q.nodes.first?["matrix"] as? [Double])
            let fm = f.nodes.first?["matrix"] as? [Double] ?? Node.identity.map(Double.init)
            let lo = try #require(position["min"] as? [Int]).map(Double.init), hi = maxima.map(Double.init)
            let flo = try #require(f.accessors[0]["min"] as? [Double]), fhi = try #require(f.accessors[0]["max"] as? [Double])
            func apply(_ m: [Double], _ p: [Double]) -> [Double] { (0..<3).map { r in m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r] } }
            let scale = (0..<3).map { fm[$0] * fm[$0] }.reduce(0, +).squareRoot()
            let step = (0..<3).map { m[$0] * m[$0] }.reduce(0, +).squareRoot()
            for (a, b) in zip(apply(m, lo) + apply(m, hi), apply(fm, flo) + apply(fm, fhi)) {
                #expect(abs(a - b) <= step * 0.5 + scale * 1e-6, "\(name): \(a) vs \(b)")
            }
        }
    }

    @Test("meshopt: every view compressed, decoding to the quantised file's bytes (normals within one step)")
    func meshoptRoundTrip() throws {
        for (name, scene) in sampleScenes() where name != "empty" && name != "messy" {
            let q = try parse(GLBWriter.write(scene, encoding: .quantized))
            let c = try parse(GLBWriter.write(scene, encoding: .meshopt))
            #expect(c.json["extensionsRequired"] as? [String] == ["EXT_meshopt_compression", "KHR_mesh_quantization"])
            if q.bin.count > 10_000 { #expect(c.bin.count * 2 < q.bin.count, "\(name): \(c.bin.count) compressed bytes of \(q.bin.count)") }
            #expect(c.views.count == q.views.count)
            for k in q.views.indices {
                let plain = try viewBytes(q, k), decoded = try viewBytes(c, k)
                let filter = ((c.views[k]["extensions"] as? [String: Any])?["EXT_meshopt_compression"] as? [String: Any])?["filter"] as? String
                if filter == "OCTAHEDRAL" {
                    #expect(plain.count == decoded.count)
                    let worst = zip(plain, decoded).map { abs(Int(Int8(bitPattern: $0)) - Int(Int8(bitPattern: $1))) }.max() ?? 0
                    #expect(worst <= 2, "\(name) view \(k): normals differ by \(worst) steps")
                } else if q.views[k]["target"] as? Int == 34963 {
                    // The triangle codec may start a triangle at another corner (same winding).
                    let type = q.accessors.first { $0["bufferView"] as? Int == k }?["componentType"] as? Int
                    let size = type == 5125 ? 4 : 2
                    func index(_ b: [UInt8], _ i: Int) -> Int { (0..<size).reduce(0) { $0 | Int(b[size * i + $1]) << (8 * $1) } }
                    #expect(plain.count == decoded.count)
                    var same = true
                    for t in 0..<(plain.count / size / 3) {
                        let a = (0..<3).map { index(plain, 3 * t + $0) }, b = (0..<3).map { index(decoded, 3 * t + $0) }
                        if !(0..<3).contains(where: { r in (0..<3).allSatisfy { a[$0] == b[($0 + r) % 3] } }) { same = false }
                    }
                    #expect(same, "\(name) view \(k): the decoded triangles are not the written ones")
                } else {
                    #expect(plain == decoded, "\(name) view \(k): decoded bytes differ")
                }
            }
            #expect(c.json["accessors"] as? NSArray == q.json["accessors"] as? NSArray)
            #expect(c.json["nodes"] as? NSArray == q.json["nodes"] as? NSArray)
        }
    }

    /// Two triangles whose vertices draw atoms 7, 7, 9 and 70,000 (or the null id).
    func featureScene(_ ids: [UInt32]) -> TriangleScene {
        var mesh = TriangleMesh(name: "atoms")
        mesh.positions = [SIMD3(0, 0, 0), SIMD3(1, 0, 0), SIMD3(0, 1, 0), SIMD3(1, 1, 0)]
        mesh.normals = Array(repeating: SIMD3(0, 0, 1), count: 4)
        mesh.features = ids
        mesh.indices = [0, 1, 2, 2, 1, 3]
        mesh.parts = [.init(triangles: 0..<2, material: 0)]
        var scene = TriangleScene(name: "features")
        scene.materials = [Material(name: "white", baseColor: SIMD4(1, 1, 1, 1))]
        scene.meshes = [mesh]
        scene.nodes = [Node(name: "n", mesh: 0, transform: Node.identity)]
        return scene
    }

    @Test("feature ids: EXT_mesh_features used (never required) where asked, each vertex's id read back, the null id the type's largest")
    func featureIDs() throws {
        for (ids, type, null) in [([7, 7, 9, TriangleMesh.noFeature], 5123, 65535), ([7, 7, 9, 70_000], 5126, (1 << 24) - 1)] as [([UInt32], Int, Int)] {
            let scene = featureScene(ids)
            for encoding in GLBWriter.Encoding.allCases {
                let p = try parse(GLBWriter.write(scene, encoding: encoding, features: true))
                #expect((p.json["extensionsUsed"] as? [String])?.contains("EXT_mesh_features") == true)
                #expect((p.json["extensionsRequired"] as? [String])?.contains("EXT_mesh_features") != true)
                let primitive = try #require(((p.json["meshes"] as? [[String: Any]])?.first?["primitives"] as? [[String: Any]])?.first)
                let accessor = try #require((primitive["attributes"] as? [String: Int])?["_FEATURE_ID_0"])
                let set = try #require((((primitive["extensions"] as? [String: Any])?["EXT_mesh_features"] as? [String: Any])?["featureIds"] as? [[String: Any]])?.first)
                #expect(set["attribute"] as? Int == 0 && set["nullFeatureId"] as? Int == null && set["label"] as? String == "atom")
                #expect(set["featureCount"] as? Int == Set(ids.filter { $0 != TriangleMesh.noFeature }).count)
                #expect(p.accessors[accessor]["componentType"] as? Int == type && p.accessors[accessor]["type"] as? String == "SCALAR")
                let view = try #require(p.accessors[accessor]["bufferView"] as? Int)
                let bytes = try viewBytes(p, view)
                let read = (0..<4).map { v -> Int in
                    let o = 4 * v
                    let word = UInt32(bytes[o]) | UInt32(bytes[o + 1]) << 8 | UInt32(bytes[o + 2]) << 16 | UInt32(bytes[o + 3]) << 24
                    return type == 5123 ? Int(word & 0xFFFF) : Int(Float(bitPattern: word))
                }
                let written = ids.map { $0 == TriangleMesh.noFeature ? null : Int($0) }
                // The float file keeps the vertex order; the others renumber vertices in first-use order.
                if encoding == .float { #expect(read == written) } else { #expect(read.sorted() == written.sorted(), "\(encoding)") }
            }
            let without = try parse(GLBWriter.write(scene, encoding: .quantized))
            #expect(without.json["extensionsUsed"] as? [String] == ["KHR_mesh_quantization"], "Scene Viewer's GLB: no feature ids")
        }
    }

    @Test("frames: an animation of the frame nodes' scale in STEP keys, the first frame shown; other formats show the first frame")
    func frames() throws {
        var scene = TriangleScene(name: "frames")
        scene.materials = [Material(name: "m", baseColor: SIMD4(1, 1, 1, 1))]
        scene.meshes = [featureScene([1, 1, 1, 1]).meshes[0], featureScene([2, 2, 2, 2]).meshes[0], featureScene([3, 3, 3, 3]).meshes[0]]
        scene.nodes = (0..<3).map { Node(name: "n\($0)", mesh: $0) }
        scene.frames = [[0], [1], [2]]
        scene.frameSeconds = 0.5
        for encoding in GLBWriter.Encoding.allCases {
            let p = try parse(GLBWriter.write(scene, encoding: encoding))
            // Frame nodes 3, 4, 5 hold the mesh nodes; the scene shows them; frames after the first start at scale 0.
            #expect(((p.json["scenes"] as? [[String: Any]])?.first?["nodes"] as? [Int]) == [3, 4, 5])
            #expect(p.nodes.count == 6 && (3..<6).allSatisfy { p.nodes[$0]["children"] as? [Int] == [$0 - 3] })
            #expect(p.nodes[3]["scale"] == nil && p.nodes[4]["scale"] as? [Double] == [0, 0, 0])
            let animation = try #require((p.json["animations"] as? [[String: Any]])?.first)
            let channels = try #require(animation["channels"] as? [[String: Any]])
            let samplers = try #require(animation["samplers"] as? [[String: Any]])
            #expect(channels.count == 3 && samplers.count == 3)
            for (f, channel) in channels.enumerated() {
                let target = try #require(channel["target"] as? [String: Any])
                #expect(target["node"] as? Int == 3 + f && target["path"] as? String == "scale" && channel["sampler"] as? Int == f)
                #expect(samplers[f]["interpolation"] as? String == "STEP")
                let input = try #require(samplers[f]["input"] as? Int), output = try #require(samplers[f]["output"] as? Int)
                #expect(p.accessors[input]["min"] as? [Double] == [0] && p.accessors[input]["max"] as? [Double] == [1.5])
                let times = try floats(p, input), scales = try floats(p, output)
                #expect(times == [0, 0.5, 1, 1.5], "\(encoding)")
                // Scale 1 while frame f shows (key f, and key 3 for the first frame, which ends the loop), else 0.
                #expect(stride(from: 0, to: scales.count, by: 3).map { scales[$0] } == (0..<4).map { $0 % 3 == f ? 1 : 0 }, "\(encoding)")
            }
        }
        // USDZ and the others show the first frame: its node alone.
        #expect(scene.firstFrame.nodes == [scene.nodes[0]] && scene.firstFrame.frames.isEmpty)
        #expect(ModelFormat.usdz.encode(scene) == ModelFormat.usdz.encode(scene.firstFrame))
        #expect(ModelFormat.stl.encode(scene) == ModelFormat.stl.encode(scene.firstFrame))
        // One frame is no animation.
        var one = scene
        one.frames = [[0, 1, 2]]
        #expect(try parse(GLBWriter.write(one)).json["animations"] == nil)
    }

    /// An accessor's floats (SCALAR or VEC3), from its view.
    func floats(_ p: Parsed, _ accessor: Int) throws -> [Float] {
        let view = try #require(p.accessors[accessor]["bufferView"] as? Int)
        let bytes = try viewBytes(p, view)
        return stride(from: 0, to: bytes.count, by: 4).map { o in
            Float(bitPattern: UInt32(bytes[o]) | UInt32(bytes[o + 1]) << 8 | UInt32(bytes[o + 2]) << 16 | UInt32(bytes[o + 3]) << 24)
        }
    }
}
