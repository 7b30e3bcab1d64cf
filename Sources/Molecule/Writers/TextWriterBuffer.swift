/// A growing byte buffer with the number formatting the text writers need, without Foundation and
/// without building a String per number.
struct TextWriterBuffer {
    var bytes: [UInt8] = []

    init(reserve: Int = 0) { bytes.reserveCapacity(reserve) }

    @inline(__always) mutating func append(_ b: UInt8) { bytes.append(b) }
    mutating func append(_ s: String) { bytes.append(contentsOf: s.utf8) }
    mutating func append(_ s: StaticString) {
        s.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }
    mutating func append(contentsOf c: [UInt8]) { bytes.append(contentsOf: c) }
    mutating func append(contentsOf c: ArraySlice<UInt8>) { bytes.append(contentsOf: c) }
    mutating func appendSpaces(_ n: Int) { for _ in 0..<max(0, n) { bytes.append(0x20) } }

    mutating func appendInt(_ v: Int) { TextWriterBuffer.decimal(v, into: &bytes) }

    /// `v` with exactly `decimals` digits after the point, like printf's "%.Nf" (no padding).
    mutating func appendFixed(_ v: Double, decimals: Int) {
        TextWriterBuffer.fixed(v, decimals: decimals, into: &bytes)
    }

    /// The shortest of 2…6 decimals that reads back as the same Float ("1.00", "0.125", "12.3456").
    mutating func appendCompact(_ v: Float, minDecimals: Int = 2) {
        guard v.isFinite else { append("?" as StaticString); return }
        var d = minDecimals
        while d < 6 {
            let scale = TextWriterBuffer.pow10(d)
            if Float((Double(v) * scale).rounded(.toNearestOrEven) / scale) == v { break }
            d += 1
        }
        appendFixed(Double(v), decimals: d)
    }

    /// 10^d for d in 0...9.
    @inline(__always)
    static func pow10(_ d: Int) -> Double {
        switch d {
        case ...0: return 1
        case 1: return 10
        case 2: return 100
        case 3: return 1e3
        case 4: return 1e4
        case 5: return 1e5
        case 6: return 1e6
        case 7: return 1e7
        case 8: return 1e8
        default: return 1e9
        }
    }

    static func decimal(_ v: Int, into out: inout [UInt8]) {
        if v < 0 { out.append(0x2D) }
        appendDigits(UInt64(v.magnitude), minDigits: 1, into: &out)
    }

    /// Decimal digits of `m`, left-padded with zeros to `minDigits` (at most 20 digits).
    @inline(__always)
    static func appendDigits(_ m: UInt64, minDigits: Int, into out: inout [UInt8]) {
        // Digits are produced last first into a 24-byte scratch area, then appended in order.
        var scratch: (UInt64, UInt64, UInt64) = (0, 0, 0)
        withUnsafeMutableBytes(of: &scratch) { buf in
            var m = m, k = 24
            repeat { k -= 1; buf[k] = UInt8(truncatingIfNeeded: m % 10) + 0x30; m /= 10 } while m > 0
            let want = min(max(minDigits, 1), 24)
            while 24 - k < want { k -= 1; buf[k] = 0x30 }
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: buf[k..<24]))
        }
    }

    /// printf-style "%.Nf". Values too large for that (beyond 9e18 once scaled) are written in
    /// exponent form ("3.4e+38"); NaN and infinities as 0.
    static func fixed(_ v: Double, decimals: Int, into out: inout [UInt8]) {
        let d = min(max(decimals, 0), 9)
        let scale = pow10(d)
        var scaled = (Swift.abs(v) * scale).rounded(.toNearestOrEven)
        if !scaled.isFinite { scaled = 0 }
        if scaled >= 9e18 {
            out.append(contentsOf: "\(v)".utf8)
            return
        }
        let n = UInt64(scaled)
        if v < 0 && n != 0 { out.append(0x2D) }
        let p = UInt64(scale)
        appendDigits(n / p, minDigits: 1, into: &out)
        if d > 0 {
            out.append(0x2E)
            appendDigits(n % p, minDigits: d, into: &out)
        }
    }
}
