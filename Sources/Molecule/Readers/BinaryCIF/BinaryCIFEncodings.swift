/// BinaryCIF's numeric encodings, each undoing one step of a column's encoding chain.
extension BinaryCIFDecoder {
    /// value / factor, divided (not multiplied by 1/factor) so 12345 / 1000 is exactly the Double
    /// nearest 12.345, as the text "12.345" would parse. Kept in Double even for srcType Float32.
    static func fixedPoint(_ input: [Int32], factor: Double) -> [Double] {
        input.withUnsafeBufferPointer { src in
            [Double](unsafeUninitializedCapacity: src.count) { dst, n in
                for i in 0..<src.count { dst[i] = Double(src[i]) / factor }
                n = src.count
            }
        }
    }

    static func intervalQuantization(_ input: [Int32], min lo: Double, max hi: Double, numSteps: Int) -> [Double] {
        let step = (hi - lo) / Double(numSteps - 1)
        return input.withUnsafeBufferPointer { src in
            [Double](unsafeUninitializedCapacity: src.count) { dst, n in
                for i in 0..<src.count { dst[i] = lo + step * Double(src[i]) }
                n = src.count
            }
        }
    }

    /// (value, count) pairs expanded. The counts are summed and checked against `srcSize` and the
    /// file's remaining budget before anything is allocated.
    static func runLength(_ input: [Int32], srcSize: Int, site: Site, state: inout DecodeState) throws -> [Int32] {
        guard input.count % 2 == 0 else { throw site.error("RunLength data has an odd number (\(input.count)) of values") }
        let total = try input.withUnsafeBufferPointer { src throws(StructureReadError) -> Int in
            var total = 0
            var i = 1
            while i < src.count {
                let c = src[i]
                guard c >= 0 else { throw site.error("RunLength repeat count \(c) is negative") }
                total += Int(c)  // at most 2^31 pairs of counts below 2^31: cannot overflow Int64
                i += 2
            }
            return total
        }
        guard total == srcSize else { throw site.error("RunLength expands to \(total) values but srcSize is \(srcSize)") }
        guard total <= state.budget else {
            throw site.error("RunLength expands to \(total) values, past what is left (\(state.budget)) of the limit on decoded values per file")
        }
        state.budget -= total
        return input.withUnsafeBufferPointer { src in
            [Int32](unsafeUninitializedCapacity: total) { dst, n in
                var k = 0
                var i = 0
                while i + 1 < src.count {
                    let v = src[i], c = Int(src[i + 1])
                    for j in k..<(k + c) { dst[j] = v }
                    k += c
                    i += 2
                }
                n = k
            }
        }
    }

    /// Running sum starting from `origin`, wrapping like a 32-bit typed array would.
    static func delta(_ input: [Int32], origin: Int32) -> [Int32] {
        input.withUnsafeBufferPointer { src in
            [Int32](unsafeUninitializedCapacity: src.count) { dst, n in
                var acc = origin
                for i in 0..<src.count {
                    acc = acc &+ src[i]
                    dst[i] = acc
                }
                n = src.count
            }
        }
    }

    /// Values stored in 8 or 16 bits; a value at the type's limit continues into the next one.
    static func integerPacking(_ input: [Int32], byteCount: Int, isUnsigned: Bool, srcSize: Int, site: Site) throws -> [Int32] {
        let upper: Int32, lower: Int32
        switch (byteCount, isUnsigned) {
        // Unsigned values continue at the upper limit only: -1 is never met.
        case (1, true): upper = 0xFF; lower = -1
        case (2, true): upper = 0xFFFF; lower = -1
        case (1, false): upper = 0x7F; lower = -0x80
        case (2, false): upper = 0x7FFF; lower = -0x8000
        default: throw site.error("IntegerPacking byteCount \(byteCount) is not 1 or 2")
        }
        guard srcSize >= 0, srcSize <= input.count else {
            throw site.error("IntegerPacking srcSize \(srcSize) is more than its \(input.count) packed values can hold")
        }
        return try input.withUnsafeBufferPointer { src throws(StructureReadError) -> [Int32] in
            let n = src.count
            var out = [Int32]()
            out.reserveCapacity(srcSize)
            var i = 0
            while i < n {
                var value: Int32 = 0
                var t = src[i]
                while t == upper || t == lower {
                    value = value &+ t
                    i += 1
                    guard i < n else { throw site.error("IntegerPacking data ends inside a continued value") }
                    t = src[i]
                }
                out.append(value &+ t)
                i += 1
            }
            guard out.count == srcSize else {
                throw site.error("IntegerPacking unpacks to \(out.count) values but srcSize is \(srcSize)")
            }
            return out
        }
    }
}
