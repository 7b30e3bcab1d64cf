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
    mutating func append<C: Collection>(contentsOf c: C) where C.Element == UInt8 { bytes.append(contentsOf: c) }
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
            let scale = TextWriterBuffer.pow10[d]
            if Float((Double(v) * scale).rounded(.toNearestOrEven) / scale) == v { break }
            d += 1
        }
        appendFixed(Double(v), decimals: d)
    }

    static let pow10: [Double] = [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9]

    static func decimal(_ v: Int, into out: inout [UInt8]) {
        if v < 0 { out.append(0x2D) }
        appendDigits(UInt64(v.magnitude), minDigits: 1, into: &out)
    }

    /// Decimal digits of `m`, left-padded with zeros to `minDigits`.
    @inline(__always)
    static func appendDigits(_ m: UInt64, minDigits: Int, into out: inout [UInt8]) {
        let start = out.count
        var m = m, count = 0
        repeat { out.append(UInt8(truncatingIfNeeded: m % 10) + 0x30); m /= 10; count += 1 } while m > 0
        while count < minDigits { out.append(0x30); count += 1 }
        out[start..<out.count].reverse()
    }

    /// printf-style "%.Nf". Values too large for that (beyond 9e18 once scaled) are written in
    /// exponent form ("3.4e+38"); NaN and infinities as 0.
    static func fixed(_ v: Double, decimals: Int, into out: inout [UInt8]) {
        let d = min(max(decimals, 0), 9)
        let scale = pow10[d]
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
