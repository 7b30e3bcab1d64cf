import Foundation
import Testing
@testable import SceneExport
import TextOutput

/// The crate writer's own encodings, checked by decoding them here (usd-core reads the files in
/// scripts/checks/check-usd-layers.py and check-usdz.py).
@Suite("USD crate layer")
struct USDCrateTests {
    /// An LZ4 block decoder written from the block format description (token, literals, offset,
    /// match length), independent of the encoder's code.
    func lz4Decode(_ block: ArraySlice<UInt8>) -> [UInt8]? {
        var out: [UInt8] = []
        var i = block.startIndex
        func length(_ base: Int) -> Int? {
            var n = base
            guard base == 15 else { return n }
            while true {
                guard i < block.endIndex else { return nil }
                let b = Int(block[i]); i += 1
                n += b
                if b != 255 { return n }
            }
        }
        while i < block.endIndex {
            let token = Int(block[i]); i += 1
            guard let literals = length(token >> 4), i + literals <= block.endIndex else { return nil }
            out.append(contentsOf: block[i..<(i + literals)]); i += literals
            if i == block.endIndex { return out }
            guard i + 2 <= block.endIndex else { return nil }
            let offset = Int(block[i]) | Int(block[i + 1]) << 8; i += 2
            guard offset > 0, offset <= out.count, let extra = length(token & 15) else { return nil }
            for _ in 0..<(extra + 4) { out.append(out[out.count - offset]) }
        }
        return out
    }

    @Test("TfFastCompression blocks decode to their input: empty, short, repetitive, random, long runs")
    func lz4RoundTrip() throws {
        var generator = SystemRandomNumberGenerator()
        var inputs: [[UInt8]] = [[], [7], Array(repeating: 3, count: 12), Array(repeating: 3, count: 13),
                                 Array(repeating: 0, count: 100_000), (0..<70_000).map { UInt8(truncatingIfNeeded: $0 % 251) },
                                 (0..<5_000).map { _ in UInt8.random(in: 0...255, using: &generator) }]
        inputs.append(IntegerCoding.encode((0..<30_000).map { Int32($0 % 97) * 3 + Int32($0 / 97) }))
        for input in inputs {
            let blob = try FastCompression.compress(input)
            #expect(blob.first == 0, "one chunk")
            let decoded = try #require(lz4Decode(blob.dropFirst()), "block of \(input.count) bytes does not decode")
            #expect(decoded == input, "block of \(input.count) bytes")
        }
        // Runs compress: 100,000 zero bytes take a few hundred.
        #expect(try FastCompression.compress(Array(repeating: 0, count: 100_000)).count < 500)
    }

    @Test("integer coding: common delta, then 1-, 2- and 4-byte deltas, wrapping")
    func integerCoding() {
        let values: [Int32] = [3, 3, 3, 5, 300, -70_000, Int32.max, Int32.min]
        let bytes = IntegerCoding.encode(values)
        // Deltas 3, 0, 0, 2, 295, -70300, Int32.max + 70000 (wraps to a large negative), then
        // Int32.min - Int32.max, which wraps to 1; the common delta is 0.
        #expect(Array(bytes[0..<4]) == [0, 0, 0, 0])
        var codes: [Int] = []
        for i in 0..<values.count {
            let packed = bytes[4 + i / 4] >> UInt8(2 * (i % 4))
            codes.append(Int(packed & 3))
        }
        #expect(codes == [1, 0, 0, 1, 2, 3, 3, 1])
    }

    @Test("the crate's bootstrap, sections and table of contents")
    func layout() throws {
        let scene = try #require(sampleScenes().first { $0.0 == "mixed" }?.1)
        var builder = USDLayerBuilder(scene: scene, options: .init())
        let crate = try USDCrateWriter.write(builder.build())
        #expect(Array(crate[0..<8]) == Array("PXR-USDC".utf8))
        #expect(Array(crate[8..<11]) == [0, 8, 0])
        func u64(_ o: Int) -> Int { (0..<8).reduce(0) { $0 | Int(crate[o + $1]) << (8 * $1) } }
        let toc = u64(16)
        #expect(toc > 88 && toc < crate.count)
        #expect(u64(toc) == 6)
        var names: [String] = []
        var end = 0
        for k in 0..<6 {
            let entry = toc + 8 + 32 * k
            names.append(String(decoding: crate[entry..<(entry + 16)].prefix { $0 != 0 }, as: UTF8.self))
            #expect(u64(entry + 16) >= end, "sections in order")
            end = u64(entry + 16) + u64(entry + 24)
        }
        #expect(names == ["TOKENS", "STRINGS", "FIELDS", "FIELDSETS", "PATHS", "SPECS"])
        #expect(end == toc)
        #expect(toc + 8 + 6 * 32 == crate.count)
    }

    @Test("the text layer reads back as the crate's floats: points and normals are on the printed grid")
    func textNumbersMatch() {
        for decimals in [0, 1, 3, 5, 7] {
            let scale = TextBuffer.pow10(decimals)
            for v: Float in [0, 1e-9, -0.00049, 0.0005, 0.1, -0.15, 1.23456789, -98.76543, 1234.5678, 3.4e37, 0.99999994] {
                let q = USDLayerBuilder.quantised(v, scale: scale)
                let layer = USDLayer(defaultPrim: "r", documentation: "", metersPerUnit: 1, upAxis: "Y", rootPrims: [
                    USDPrim(typeName: "Mesh", name: "r", properties: [.attribute(USDAttribute(
                        name: "points", typeName: "point3f[]", value: .float3Array([SIMD3(q, q, q)], decimals: decimals)))])])
                let text = String(decoding: USDATextWriter.write(layer), as: UTF8.self)
                guard let open = text.range(of: "points = [("), let close = text.range(of: ",", range: open.upperBound..<text.endIndex),
                      let read = Double(text[open.upperBound..<close.lowerBound]) else {
                    Issue.record("no point in \(text)")
                    continue
                }
                #expect(Float(read) == q, "\(v) at \(decimals) places: text \(read), crate \(q)")
            }
        }
    }

    @Test("a crate is a fraction of the text for a large mesh")
    func smallerThanText() throws {
        let scene = try #require(sampleScenes().first { $0.0 == "sphere" }?.1)
        let crate = USDZWriter.write(scene)
        let text = USDZWriter.write(scene, options: .init(layerFormat: .text))
        #expect(crate.count * 2 < text.count, "crate \(crate.count) bytes, text \(text.count)")
    }
}
