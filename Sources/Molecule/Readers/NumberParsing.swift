/// Fast number parsing straight from ASCII bytes, without building Strings: the readers' hot path.
public enum NumberParsing {
    /// Parses an optionally signed decimal integer, allowing surrounding spaces. nil when not a number
    /// or out of the Int32 range that atom and residue numbers use.
    @inline(__always)
    public static func int(_ b: UnsafeBufferPointer<UInt8>) -> Int? {
        var i = 0, end = b.count
        while i < end, b[i] == 0x20 { i += 1 }
        while end > i, b[end - 1] == 0x20 || b[end - 1] == 0x0D { end -= 1 }
        guard i < end else { return nil }
        var negative = false
        if b[i] == 0x2D { negative = true; i += 1 } else if b[i] == 0x2B { i += 1 }
        guard i < end else { return nil }
        var v = 0
        while i < end {
            let d = b[i] &- 0x30
            guard d < 10 else { return nil }
            v = v * 10 + Int(d)
            if v > Int(Int32.max) { return nil }
            i += 1
        }
        return negative ? -v : v
    }

    /// Parses a decimal floating-point number ("-12.345", "1.5e-3", ".5", "1.234(5)" with its standard
    /// uncertainty ignored), allowing surrounding spaces. nil when malformed or not finite.
    @inline(__always)
    public static func double(_ b: UnsafeBufferPointer<UInt8>) -> Double? {
        var i = 0, end = b.count
        while i < end, b[i] == 0x20 { i += 1 }
        while end > i, b[end - 1] == 0x20 || b[end - 1] == 0x0D { end -= 1 }
        guard i < end else { return nil }
        // Drop a CIF standard uncertainty such as "(5)".
        if b[end - 1] == 0x29 {
            var j = end - 1
            while j > i, b[j] != 0x28 { j -= 1 }
            guard j > i else { return nil }
            end = j
        }
        var negative = false
        if b[i] == 0x2D { negative = true; i += 1 } else if b[i] == 0x2B { i += 1 }
        var mantissa: UInt64 = 0
        var digits = 0, scale = 0, anyDigit = false
        while i < end, case let d = b[i] &- 0x30, d < 10 {
            if digits < 18 { mantissa = mantissa * 10 + UInt64(d); if mantissa > 0 { digits += 1 } } else { scale += 1 }
            anyDigit = true; i += 1
        }
        if i < end, b[i] == 0x2E {
            i += 1
            while i < end, case let d = b[i] &- 0x30, d < 10 {
                if digits < 18 { mantissa = mantissa * 10 + UInt64(d); if mantissa > 0 { digits += 1 }; scale -= 1 }
                anyDigit = true; i += 1
            }
        }
        guard anyDigit else { return nil }
        if i < end, b[i] == 0x65 || b[i] == 0x45 {
            i += 1
            var eneg = false
            if i < end, b[i] == 0x2D { eneg = true; i += 1 } else if i < end, b[i] == 0x2B { i += 1 }
            var e = 0, eDigits = 0
            while i < end, case let d = b[i] &- 0x30, d < 10 { if e < 10000 { e = e * 10 + Int(d) }; eDigits += 1; i += 1 }
            guard eDigits > 0 else { return nil }
            scale += eneg ? -e : e
        }
        guard i == end else { return nil }
        var v = Double(mantissa)
        // Dividing by an exact power of ten rounds correctly for the short decimals files hold.
        switch scale {
        case 0: break
        case -1: v /= 10
        case -2: v /= 100
        case -3: v /= 1000
        case -4: v /= 10_000
        case -5: v /= 100_000
        case -6: v /= 1_000_000
        case -22 ..< -6: v /= power(10, -scale)
        case 1...22: v *= power(10, scale)
        default: v = scale < 0 ? v / 1e22 * power(10, scale + 22) : v * power(10, scale)
        }
        guard v.isFinite else { return nil }
        return negative ? -v : v
    }

    static func power(_ base: Double, _ e: Int) -> Double {
        var r = 1.0, b = base, n = abs(e)
        while n > 0 { if n & 1 == 1 { r *= b }; b *= b; n >>= 1 }
        return e < 0 ? 1 / r : r
    }

    public static func int<S: StringProtocol>(_ s: S) -> Int? {
        var s = String(s)
        return s.withUTF8 { int($0) }
    }

    public static func double<S: StringProtocol>(_ s: S) -> Double? {
        var s = String(s)
        return s.withUTF8 { double($0) }
    }
}
