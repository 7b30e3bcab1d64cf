/// UTF-8 text built in one growable byte buffer, with the number formats every text writer of
/// ProteinAR needs (PDB, mmCIF, USDA, OBJ, PLY, DAE, glTF's JSON): digits are written straight
/// into reserved space, never through a `String` per number, so that files of millions of numbers
/// stream out fast and read the same on every platform. Standard library only.
///
/// The buffer's array is its storage: space is reserved ahead (zero-filled once, when it grows)
/// and `finish()` hands the array over without a copy.
public struct TextBuffer: Sendable {
    @usableFromInline var storage: [UInt8]
    @usableFromInline var used: Int
    /// Bytes written so far.
    public var count: Int { used }

    /// A buffer expecting about `capacity` bytes (it grows past that as needed).
    public init(capacity: Int = 256) {
        storage = [UInt8](repeating: 0, count: max(capacity, 64))
        used = 0
    }

    /// The text written, handing over the storage (the buffer is empty afterwards).
    public mutating func finish() -> [UInt8] {
        var out: [UInt8] = []
        swap(&out, &storage)
        out.removeLast(out.count - used)
        used = 0
        return out
    }

    /// A copy of the text written so far.
    public var bytes: [UInt8] { Array(storage[0..<used]) }

    /// The last byte written, if any.
    public var lastByte: UInt8? { used > 0 ? storage[used - 1] : nil }

    /// Forgets what was written, keeping the space.
    public mutating func removeAll() { used = 0 }

    // MARK: Space

    @inlinable @inline(__always)
    mutating func reserve(_ n: Int) { if used + n > storage.count { grow(n) } }

    @usableFromInline @inline(never)
    mutating func grow(_ n: Int) {
        storage.append(contentsOf: repeatElement(0, count: max(storage.count, used + n - storage.count)))
    }

    /// Lets `body` write at most `maxBytes` through a cursor at the end of the text, and keeps
    /// what it wrote.
    @inlinable @inline(__always)
    public mutating func withSpace(_ maxBytes: Int, _ body: (inout Cursor) -> Void) {
        reserve(maxBytes)
        let start = used
        let written = storage.withUnsafeMutableBufferPointer { buffer -> Int in
            // Reserved above, so the base address exists.
            var cursor = Cursor(base: buffer.baseAddress.unsafelyUnwrapped + start)
            body(&cursor)
            return cursor.offset
        }
        precondition(written <= maxBytes, "TextBuffer: wrote past the reserved space")
        used = start + written
    }

    // MARK: Text

    @inlinable @inline(__always)
    public mutating func byte(_ b: UInt8) {
        reserve(1)
        storage[used] = b
        used += 1
    }

    public mutating func text(_ s: StaticString) {
        s.withUTF8Buffer { append($0) }
    }

    public mutating func text(_ s: String) {
        var s = s
        s.withUTF8 { append($0) }
    }

    public mutating func text(_ bytes: [UInt8]) { bytes.withUnsafeBufferPointer { append($0) } }
    public mutating func text(_ other: TextBuffer) {
        other.storage.withUnsafeBufferPointer { append(UnsafeBufferPointer(rebasing: $0[0..<other.used])) }
    }
    public mutating func text(_ bytes: ArraySlice<UInt8>) { bytes.withUnsafeBufferPointer { append($0) } }

    /// `s` in double quotes, with `"`, `\`, newline, carriage return and tab escaped as C, JSON and
    /// USDA write them; with `escapingControls`, other control characters as `\u00XX`: a JSON
    /// string, as `JSONString` escapes it.
    public mutating func quoted(_ s: String, escapingControls: Bool = false) {
        byte(0x22)
        for b in s.utf8 {
            switch b {
            case 0x22, 0x5C, 0x0A, 0x0D, 0x09: text(JSONString.escape(b))
            case 0..<0x20 where escapingControls: text(JSONString.escape(b))
            default: byte(b)
            }
        }
        byte(0x22)
    }

    /// `n` copies of `b` (spaces for padding, zeros for a header written later).
    public mutating func repeated(_ b: UInt8, _ n: Int) {
        guard n > 0 else { return }
        withSpace(n) { cursor in for _ in 0..<n { cursor.put(b) } }
    }

    @usableFromInline
    mutating func append(_ raw: UnsafeBufferPointer<UInt8>) {
        guard let source = raw.baseAddress, raw.count > 0 else { return }
        withSpace(raw.count) { cursor in
            (cursor.base + cursor.offset).update(from: source, count: raw.count)
            cursor.offset += raw.count
        }
    }

    // MARK: Numbers

    @inlinable
    public mutating func int(_ v: Int) {
        withSpace(21) { $0.unsigned(UInt64(v.magnitude), negative: v < 0) }
    }

    /// `v` left-padded with zeros to `minDigits` digits.
    @inlinable
    public mutating func unsigned(_ v: UInt64, minDigits: Int = 1) {
        withSpace(max(20, minDigits)) { $0.unsigned(v, minDigits: minDigits) }
    }

    /// printf's "%.Nf" (round half to even, no padding), for N in 0...9. Values too large for that
    /// (beyond 9e18 once scaled) are written in exponent form ("3.4e+38"); NaN and infinities as 0.
    public mutating func printf(_ v: Double, decimals: Int) {
        let d = min(max(decimals, 0), 9)
        let scale = Self.pow10(d)
        var scaled = (v.magnitude * scale).rounded(.toNearestOrEven)
        if !scaled.isFinite { scaled = 0 }
        if scaled >= 9e18 {
            text("\(v)")
            return
        }
        let n = UInt64(scaled)
        let p = UInt64(scale)
        withSpace(44) { cursor in
            cursor.unsigned(n / p, negative: v < 0 && n != 0)
            if d > 0 {
                cursor.put(0x2E)
                cursor.unsigned(n % p, minDigits: d)
            }
        }
    }

    /// The shortest of `minDecimals`…6 decimals that reads back as the same Float ("1.00",
    /// "0.125", "12.3456"); "?" when not finite.
    public mutating func compact(_ v: Float, minDecimals: Int = 2) {
        guard v.isFinite else { byte(0x3F); return }
        var d = minDecimals
        while d < 6 {
            let scale = Self.pow10(d)
            if Float((Double(v) * scale).rounded(.toNearestOrEven) / scale) == v { break }
            d += 1
        }
        printf(Double(v), decimals: d)
    }

    /// `x` rounded to `significant` digits (1...9, clamped), without trailing zeros: plain notation
    /// from 1e-4 to below 1e9, else like "1.5e-7". Non-finite values are written as 0 (files must
    /// stay parseable).
    public mutating func significant(_ x: Float, digits: Int = 6) {
        withSpace(Cursor.maxFloatBytes + 8) { $0.significant(x, digits: digits) }
    }

    /// `v` rounded half away from zero to `decimals` places (`scale` = 10^decimals), trailing
    /// zeros and a bare point dropped ("0.5", "-12.25", "3", "0"). The caller keeps `v` finite and
    /// `|v| × scale` below 9e15.
    @inlinable
    public mutating func rounded(_ v: Float, scale: Double, decimals: Int) {
        withSpace(24) { $0.rounded(v, scale: scale, decimals: decimals) }
    }

    /// The shortest decimal that reads back as the same Float (whole numbers without a point);
    /// non-finite values as 0.
    public mutating func shortest(_ v: Float) {
        withSpace(Cursor.maxFloatBytes) { $0.shortest(v) }
    }

    /// Calls `body` for items `0..<count` in chunks, each chunk writing through one cursor into
    /// space reserved for `maxBytesPerItem` per item: the way to write large arrays fast.
    @inlinable @inline(__always)
    public mutating func chunked(_ count: Int, maxBytesPerItem: Int, _ body: (inout Cursor, Int) -> Void) {
        let chunk = 4096
        var start = 0
        while start < count {
            let end = min(count, start + chunk)
            withSpace((end - start) * maxBytesPerItem) { cursor in
                for i in start..<end { body(&cursor, i) }
            }
            start = end
        }
    }

    /// 10^k for k in 0...15, exact (a switch over literals: no array, so no retain or lazy-init check).
    @inlinable @inline(__always)
    public static func pow10(_ k: Int) -> Double {
        switch k {
        case ...0: 1
        case 1: 1e1
        case 2: 1e2
        case 3: 1e3
        case 4: 1e4
        case 5: 1e5
        case 6: 1e6
        case 7: 1e7
        case 8: 1e8
        case 9: 1e9
        case 10: 1e10
        case 11: 1e11
        case 12: 1e12
        case 13: 1e13
        case 14: 1e14
        default: 1e15
        }
    }

    /// e with 10^e <= a < 10^(e+1), for 1e-4 <= a < 1e9.
    public static func decade(_ a: Double) -> Int {
        if a < 1 {
            return a < 1e-2 ? (a < 1e-3 ? -4 : -3) : (a < 1e-1 ? -2 : -1)
        }
        if a < 1e3 { return a < 1e1 ? 0 : (a < 1e2 ? 1 : 2) }
        var e = 3
        var limit = 1e4
        while e < 8 && a >= limit { e += 1; limit *= 10 }
        return e
    }
}

extension TextBuffer {
    /// Writes at a raw position inside space `withSpace` reserved.
    public struct Cursor {
        public let base: UnsafeMutablePointer<UInt8>
        public var offset = 0

        /// Most bytes one number takes: a fixed-point value is below 9e15 once scaled, so at most
        /// sign, 16 digits and a point (18); a Float's shortest description is at most 15
        /// (`-1.17549435e-38`). Rounded up for safety.
        public static let maxFloatBytes = 24

        @inlinable
        init(base: UnsafeMutablePointer<UInt8>) { self.base = base }

        /// See `TextBuffer.significant`.
        public mutating func significant(_ x: Float, digits significant: Int = 6) {
            guard x.isFinite, x != 0 else { put(0x30); return }
            let significant = min(max(significant, 1), 9)
            let a = Double(x.magnitude)
            if a >= 1e-4 && a < 1e9 {
                let decimals = max(0, significant - 1 - TextBuffer.decade(a))
                rounded(x, scale: TextBuffer.pow10(decimals), decimals: decimals)
                return
            }
            var e = 0
            var y = a
            while y >= 10 { y /= 10; e += 1 }
            while y < 1 { y *= 10; e -= 1 }
            var decimals = significant - 1
            var m = UInt64(y * TextBuffer.pow10(decimals) + 0.5)
            if m >= UInt64(TextBuffer.pow10(significant)) { m /= 10; e += 1 }
            while decimals > 0 && m % 10 == 0 { m /= 10; decimals -= 1 }
            decimal(m, negative: x < 0, decimals: decimals)
            put(0x65)
            unsigned(UInt64(e.magnitude), negative: e < 0)
        }

        /// See `TextBuffer.shortest`.
        public mutating func shortest(_ v: Float) {
            guard v.isFinite else { put(0x30); return }
            if v.magnitude < 1e15, Float(Int64(v)) == v {
                unsigned(UInt64(v.magnitude), negative: v < 0)
                return
            }
            for b in v.description.utf8 { put(b) }
        }

        @inlinable @inline(__always)
        public mutating func put(_ b: UInt8) {
            base[offset] = b
            offset += 1
        }

        /// "00" "01" … "99".
        @usableFromInline static let pairs: StaticString =
            "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"

        /// Decimal digits of `v` (at least `minDigits`, zero-padded), after a minus sign when `negative`.
        @inlinable @inline(__always)
        public mutating func unsigned(_ v: UInt64, negative: Bool = false, minDigits: Int = 1) {
            if negative { put(0x2D) }
            var digits = 1
            var limit: UInt64 = 10
            while digits < 20 && v >= limit { digits += 1; limit &*= 10 }
            if digits < minDigits { digits = minDigits }
            let table = Self.pairs.utf8Start
            var p = base + offset + digits
            var rest = v
            var left = digits
            while left >= 2 {
                let q = rest / 100
                let r = Int(truncatingIfNeeded: rest &- q &* 100) &* 2
                p -= 2
                p[0] = table[r]; p[1] = table[r + 1]
                rest = q
                left -= 2
            }
            if left == 1 {
                p -= 1
                p.pointee = 48 &+ UInt8(truncatingIfNeeded: rest % 10)
            }
            offset += digits
        }

        /// `m` with a point before its last `decimals` digits (at least one digit before it).
        @inlinable @inline(__always)
        public mutating func decimal(_ m: UInt64, negative: Bool, decimals: Int) {
            guard decimals > 0 else { unsigned(m, negative: negative); return }
            unsigned(m, negative: negative, minDigits: decimals + 1)
            var i = offset
            while i > offset - decimals {
                base[i] = base[i - 1]
                i -= 1
            }
            base[i] = 0x2E
            offset += 1
        }

        /// See `TextBuffer.rounded`.
        @inlinable @inline(__always)
        public mutating func rounded(_ v: Float, scale: Double, decimals: Int) {
            // Round half away from zero: the magnitude is not negative, so truncating x + 0.5 does
            // it (a plain conversion, no libm call).
            let q = UInt64(Double(v.magnitude) * scale + 0.5)
            if q == 0 { put(0x30); return }
            decimal(q, negative: v < 0, decimals: decimals)
            guard decimals > 0 else { return }
            while base[offset - 1] == 0x30 { offset -= 1 }
            if base[offset - 1] == 0x2E { offset -= 1 }
        }
    }
}
