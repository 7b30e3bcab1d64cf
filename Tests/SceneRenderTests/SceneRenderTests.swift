import CompressNIO
import Foundation
import NIOCore
import Testing
@testable import SceneExport
@testable import SceneRender

/// A UV sphere of radius `r` at the origin, one colour per vertex.
func sphereScene(radius r: Float = 1, color: SIMD4<Float> = SIMD4(0.8, 0.2, 0.2, 1), segments: Int = 32) -> TriangleScene {
    var mesh = TriangleMesh(name: "sphere")
    let rings = segments / 2
    for i in 0...rings {
        let theta = Float.pi * Float(i) / Float(rings)
        for j in 0...segments {
            let phi = 2 * Float.pi * Float(j) / Float(segments)
            let n = SIMD3<Float>(Float(sin(Double(theta)) * cos(Double(phi))), Float(cos(Double(theta))),
                                 Float(sin(Double(theta)) * sin(Double(phi))))
            mesh.positions.append(n * r); mesh.normals.append(n); mesh.colors.append(color)
        }
    }
    for i in 0..<rings {
        for j in 0..<segments {
            let a = UInt32(i * (segments + 1) + j), b = a + UInt32(segments + 1)
            mesh.indices += [a, b, a + 1, a + 1, b, b + 1]
        }
    }
    mesh.parts = [.init(triangles: 0..<mesh.triangleCount, material: 0)]
    var scene = TriangleScene(name: "sphere")
    scene.meshes = [mesh]
    scene.materials = [Material(name: "m", baseColor: SIMD4(1, 1, 1, 1))]
    scene.nodes = [Node(name: "n", mesh: 0, transform: [2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 2, 0, 5, -3, 1, 1])]
    return scene
}

struct PNGChunk { var type: String; var data: [UInt8]; var crcOK: Bool }

func chunks(_ png: [UInt8]) -> [PNGChunk]? {
    guard png.count >= 8, Array(png[0..<8]) == PNGEncoder.signature else { return nil }
    func be(_ o: Int) -> UInt32 { UInt32(png[o]) << 24 | UInt32(png[o + 1]) << 16 | UInt32(png[o + 2]) << 8 | UInt32(png[o + 3]) }
    var out: [PNGChunk] = []
    var o = 8
    while o + 12 <= png.count {
        let n = Int(be(o))
        guard o + 12 + n <= png.count else { return nil }
        let type = String(decoding: png[(o + 4)..<(o + 8)], as: UTF8.self)
        let data = Array(png[(o + 8)..<(o + 8 + n)])
        out.append(PNGChunk(type: type, data: data, crcOK: PNGEncoder.crc32(png[(o + 4)..<(o + 8 + n)]) == be(o + 8 + n)))
        o += 12 + n
    }
    return o == png.count ? out : nil
}

/// Inflates the IDAT data and undoes the filters (None, Sub, Up) the encoder may use.
func decodePixels(_ png: [UInt8], width: Int, height: Int) throws -> [UInt8] {
    let idat = (chunks(png) ?? []).filter { $0.type == "IDAT" }.flatMap(\.data)
    var buffer = ByteBuffer(bytes: idat)
    var inflated = try buffer.decompress(with: .zlib(), maxSize: 1 << 28, allocator: ByteBufferAllocator())
    let raw = inflated.readBytes(length: inflated.readableBytes) ?? []
    let stride = width * 4
    #expect(raw.count == (stride + 1) * height)
    var pixels = [UInt8](repeating: 0, count: stride * height)
    for y in 0..<height {
        let filter = raw[y * (stride + 1)]
        for i in 0..<stride {
            let v = raw[y * (stride + 1) + 1 + i]
            let left = i >= 4 ? pixels[y * stride + i - 4] : 0
            let up = y > 0 ? pixels[(y - 1) * stride + i] : 0
            switch filter {
            case 0: pixels[y * stride + i] = v
            case 1: pixels[y * stride + i] = v &+ left
            case 2: pixels[y * stride + i] = v &+ up
            default: Issue.record("unexpected filter \(filter)")
            }
        }
    }
    return pixels
}

@Suite struct SoftwareRendererTests {
    @Test func sphereHasLitCentreAndBackgroundCorners() {
        let image = SoftwareRenderer.render(sphereScene(), width: 64, height: 48)
        #expect(image.width == 64 && image.height == 48 && image.pixels.count == 64 * 48 * 4)
        for (x, y) in [(0, 0), (63, 0), (0, 47), (63, 47)] {
            #expect(image[x, y] == SIMD4(255, 255, 255, 255))
        }
        let centre = image[32, 24]
        #expect(centre.w == 255)
        #expect(centre.x > 150)  // lit red
        #expect(centre.y < 120 && centre.z < 120)
        // Upper left faces the key light: brighter than the lower right.
        let ul = image[24, 16], lr = image[40, 32]
        #expect(Int(ul.x) > Int(lr.x))
    }

    @Test func transparentBackground() {
        var options = RenderOptions()
        options.background = .transparent
        let image = SoftwareRenderer.render(sphereScene(), width: 40, height: 40, options: options)
        #expect(image[0, 0].w == 0)
        #expect(image[20, 20].w == 255)
    }

    @Test func sphereIsFittedAndOutlined() {
        let image = SoftwareRenderer.render(sphereScene(), width: 100, height: 100)
        // Covered columns along the middle row: the sphere spans the image less the margins.
        let covered = (0..<100).filter { image[$0, 50] != SIMD4(255, 255, 255, 255) }
        #expect(covered.count > 80 && covered.count < 95)
        // The silhouette is dark.
        let darkest = covered.prefix(2).map { Int(image[$0, 50].x) + Int(image[$0, 50].y) + Int(image[$0, 50].z) }.min()!
        #expect(darkest < 450)  // white is 765
    }

    @Test func deterministic() {
        let scene = sphereScene()
        let a = SoftwareRenderer.render(scene, width: 50, height: 50)
        let b = SoftwareRenderer.render(scene, width: 50, height: 50)
        #expect(a == b)
        #expect(a.pngData() == b.pngData())
    }

    @Test func emptyAndMaterialColouredScenes() {
        let empty = SoftwareRenderer.render(TriangleScene(), width: 8, height: 4)
        #expect(empty.pixels == [UInt8](repeating: 255, count: 8 * 4 * 4))
        var scene = sphereScene()
        scene.meshes[0].colors = []
        scene.materials[0].baseColor = SIMD4(0.1, 0.2, 0.9, 1)
        let image = SoftwareRenderer.render(scene, width: 32, height: 32)
        let c = image[16, 16]
        #expect(c.z > c.x && c.z > c.y)
    }
}

@Suite struct PNGEncoderTests {
    @Test func crcKnownValue() {
        #expect(PNGEncoder.crc32(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(PNGEncoder.adler32(Array("Wikipedia".utf8)) == 0x11E6_0398)
    }

    @Test func structureAndRoundTrip() throws {
        let image = SoftwareRenderer.render(sphereScene(), width: 37, height: 23)
        let png = image.pngData()
        #expect(Array(png.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        let list = try #require(chunks(png))
        #expect(list.map(\.type) == ["IHDR", "IDAT", "IEND"])
        #expect(list.allSatisfy { $0.crcOK })
        #expect(list[0].data == [0, 0, 0, 37, 0, 0, 0, 23, 8, 6, 0, 0, 0])
        #expect(list[2].data.isEmpty)
        let decoded = try decodePixels(png, width: 37, height: 23)
        #expect(decoded == image.pixels)
    }

    @Test func storedFallbackIsValidZlib() throws {
        let data = (0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        var buffer = ByteBuffer(bytes: PNGEncoder.storedZlib(data))
        var inflated = try buffer.decompress(with: .zlib(), maxSize: 1 << 20, allocator: ByteBufferAllocator())
        #expect(inflated.readBytes(length: inflated.readableBytes) == data)
    }
}

@Test func writeSamplePictureWhenAsked() throws {
    guard let path = ProcessInfo.processInfo.environment["SCENE_RENDER_SAMPLE"] else { return }
    try Data(SoftwareRenderer.render(sphereScene(), width: 256, height: 256).pngData()).write(to: URL(fileURLWithPath: path))
}
