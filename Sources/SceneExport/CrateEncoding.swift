/// The low-level encodings of USD's crate format (`.usdc`), as OpenUSD 0.8.0 files use them: a
/// little-endian byte buffer, `TfFastCompression` (an LZ4 block behind a one-byte chunk header), and
/// `Usd_IntegerCompression` (deltas with 2-bit size codes). Written here because no library on this
/// machine writes them: OpenUSD itself is C++ (usd-core only serves the independent checks).

/// Little-endian bytes. Offsets that the crate stores are measured from `base`, so the layer can be
/// written after room for a zip header and be wrapped without a copy.
struct CrateBytes {
    var bytes: [UInt8]
    let base: Int

    init(leadingSpace: Int = 0, capacity: Int = 0) {
        bytes = []
        bytes.reserveCapacity(leadingSpace + capacity)
        bytes.append(contentsOf: repeatElement(0, count: leadingSpace))
        base = leadingSpace
    }

    /// Position within the crate (not the buffer).
    var offset: Int { bytes.count - base }

    mutating func u8(_ v: UInt8) { bytes.append(v) }
    mutating func u32(_ v: UInt32) {
        bytes.append(UInt8(truncatingIfNeeded: v))
        bytes.append(UInt8(truncatingIfNeeded: v >> 8))
        bytes.append(UInt8(truncatingIfNeeded: v >> 16))
        bytes.append(UInt8(truncatingIfNeeded: v >> 24))
    }
    mutating func u64(_ v: UInt64) {
        u32(UInt32(truncatingIfNeeded: v))
        u32(UInt32(truncatingIfNeeded: v >> 32))
    }
    mutating func i32(_ v: Int32) { u32(UInt32(bitPattern: v)) }
    mutating func i64(_ v: Int64) { u64(UInt64(bitPattern: v)) }
    mutating func f32(_ v: Float) { u32(v.bitPattern) }
    mutating func f64(_ v: Double) { u64(v.bitPattern) }
    mutating func append(_ b: [UInt8]) { bytes.append(contentsOf: b) }
    /// Zero bytes up to the next multiple of `n` (crate offsets).
    mutating func align(_ n: Int) {
        let r = offset % n
        if r != 0 { bytes.append(contentsOf: repeatElement(0, count: n - r)) }
    }
    mutating func patchU64(atOffset o: Int, _ v: UInt64) {
        for k in 0..<8 { bytes[base + o + k] = UInt8(truncatingIfNeeded: v >> (8 * UInt64(k))) }
    }
}

enum CrateError: Error, CustomStringConvertible {
    case tooLarge(String)

    var description: String {
        switch self {
        case .tooLarge(let s): return "too large for one crate block: \(s)"
        }
    }
}

/// `TfFastCompression`: a `0` byte (one chunk), then one LZ4 block. The block finds matches with a
/// small hash table over 4-byte sequences (greedy, as LZ4's fast mode does), which is what shrinks
/// the repetitive integer codes of index arrays; any valid LZ4 block decodes, so the choice of
/// matches only changes the size.
enum FastCompression {
    /// LZ4_MAX_INPUT_SIZE; larger inputs would need TfFastCompression's multi-chunk form.
    static let maxInput = 0x7E00_0000
    private static let minMatch = 4
    /// LZ4: the last 5 bytes are literals, and the last match starts at least 12 bytes before the end.
    private static let lastLiterals = 5
    private static let matchLimit = 12
    private static let hashBits = 16

    static func compress(_ input: [UInt8]) throws(CrateError) -> [UInt8] {
        guard input.count <= maxInput else { throw .tooLarge("LZ4 input of \(input.count) bytes") }
        var out: [UInt8] = [0]
        out.reserveCapacity(input.count / 2 + 16)
        input.withUnsafeBufferPointer { src in
            let n = src.count
            var table = [Int32](repeating: -1, count: 1 << hashBits)
            var anchor = 0
            var i = 0
            if n >= matchLimit + 1 {
                while i <= n - matchLimit {
                    let seq = read32(src, i)
                    let h = Int((seq &* 2_654_435_761) >> UInt32(32 - hashBits))
                    let candidate = Int(table[h])
                    table[h] = Int32(i)
                    guard candidate >= 0, i - candidate <= 65_535, read32(src, candidate) == seq else {
                        i += 1
                        continue
                    }
                    var length = minMatch
                    let limit = n - lastLiterals
                    while i + length < limit && src[i + length] == src[candidate + length] { length += 1 }
                    emit(&out, src, literals: anchor..<i, offset: i - candidate, matchLength: length)
                    i += length
                    anchor = i
                }
            }
            emit(&out, src, literals: anchor..<n, offset: 0, matchLength: 0)
        }
        return out
    }

    @inline(__always)
    private static func read32(_ p: UnsafeBufferPointer<UInt8>, _ i: Int) -> UInt32 {
        UInt32(p[i]) | UInt32(p[i + 1]) << 8 | UInt32(p[i + 2]) << 16 | UInt32(p[i + 3]) << 24
    }

    /// One LZ4 sequence: token, literal length, literals, then (unless last) offset and match length.
    private static func emit(_ out: inout [UInt8], _ src: UnsafeBufferPointer<UInt8>, literals: Range<Int>,
                             offset: Int, matchLength: Int) {
        let literalCount = literals.count
        let matchCode = matchLength == 0 ? 0 : matchLength - minMatch
        out.append(UInt8(min(literalCount, 15) << 4 | min(matchCode, 15)))
        if literalCount >= 15 { extendLength(&out, literalCount - 15) }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: src[literals]))
        guard matchLength > 0 else { return }
        out.append(UInt8(truncatingIfNeeded: offset))
        out.append(UInt8(truncatingIfNeeded: offset >> 8))
        if matchCode >= 15 { extendLength(&out, matchCode - 15) }
    }

    private static func extendLength(_ out: inout [UInt8], _ rest: Int) {
        var rest = rest
        while rest >= 255 {
            out.append(255)
            rest -= 255
        }
        out.append(UInt8(rest))
    }
}

/// `Usd_IntegerCompression` (32-bit): int32 common value, 2-bit codes for the deltas (0 the common
/// delta, 1 int8, 2 int16, 3 int32), then the other deltas; the whole then goes through LZ4.
enum IntegerCoding {
    static func encode(_ values: [Int32]) -> [UInt8] {
        let n = values.count
        guard n > 0 else { return [] }
        var deltas = [Int32](repeating: 0, count: n)
        var prev: Int32 = 0
        var freq: [Int32: Int] = [:]
        for i in 0..<n {
            // Wrapping: FIELDSETS' 0xFFFFFFFF terminators wrap, as in OpenUSD.
            let d = values[i] &- prev
            deltas[i] = d
            prev = values[i]
            freq[d, default: 0] += 1
        }
        // The most frequent delta; ties go to the larger value (OpenUSD's choice; deterministic).
        var common: Int32 = 0
        var best = -1
        for (value, count) in freq where count > best || (count == best && value > common) {
            common = value
            best = count
        }
        var w = CrateBytes(capacity: 4 + (2 * n + 7) / 8 + 4 * n)
        w.i32(common)
        let codesStart = w.bytes.count
        w.bytes.append(contentsOf: repeatElement(0, count: (2 * n + 7) / 8))
        for i in 0..<n {
            let d = deltas[i]
            let code: UInt8
            if d == common {
                code = 0
            } else if d >= Int32(Int8.min) && d <= Int32(Int8.max) {
                code = 1
                w.u8(UInt8(bitPattern: Int8(d)))
            } else if d >= Int32(Int16.min) && d <= Int32(Int16.max) {
                code = 2
                let v = UInt16(bitPattern: Int16(d))
                w.u8(UInt8(truncatingIfNeeded: v))
                w.u8(UInt8(truncatingIfNeeded: v >> 8))
            } else {
                code = 3
                w.i32(d)
            }
            w.bytes[codesStart + i / 4] |= code << UInt8(2 * (i % 4))
        }
        return w.bytes
    }

    /// `u64 compressedSize` then `TfFastCompression(encode(values))`: every integer-coded list.
    static func writeCompressed(_ values: [Int32], to w: inout CrateBytes) throws(CrateError) {
        let blob = try FastCompression.compress(encode(values))
        w.u64(UInt64(blob.count))
        w.append(blob)
    }

    static func writeCompressed(_ values: [UInt32], to w: inout CrateBytes) throws(CrateError) {
        try writeCompressed(values.map { Int32(bitPattern: $0) }, to: &w)
    }
}
