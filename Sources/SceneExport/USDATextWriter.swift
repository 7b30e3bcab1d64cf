/// Appends USDA (USD's text format) to a byte buffer: keywords, quoted strings, paths, and numbers
/// written by small formatters of its own (no per-number `String`), so that large meshes stream
/// out fast and the output is the same on every platform.
struct USDATextWriter {
    private(set) var bytes: [UInt8] = []

    init(reservingCapacity capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    // MARK: Text

    @inline(__always)
    mutating func byte(_ b: UInt8) { bytes.append(b) }

    mutating func text(_ s: StaticString) {
        s.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    mutating func text(_ s: String) { bytes.append(contentsOf: s.utf8) }

    mutating func newline() { bytes.append(0x0A) }

    mutating func zeros(_ count: Int) { bytes.append(contentsOf: repeatElement(0, count: count)) }

    mutating func indent(_ level: Int) {
        for _ in 0..<(level * 4) { bytes.append(0x20) }
    }

    /// Starts a line at `level`, writes `s`.
    mutating func line(_ level: Int, _ s: StaticString) {
        indent(level)
        text(s)
        newline()
    }

    /// Opens `def TYPE "name"` with MaterialBindingAPI applied (Meshes and GeomSubsets that carry
    /// `material:binding`, as the compliance checker requires), up to and including its `{`.
    mutating func beginBoundPrim(_ type: StaticString, _ name: String, level: Int) {
        indent(level)
        text("def ")
        text(type)
        text(" ")
        quoted(name)
        text(" (\n")
        line(level + 1, "prepend apiSchemas = [\"MaterialBindingAPI\"]")
        line(level, ")")
        line(level, "{")
    }

    /// A double-quoted string, escaping what USDA's string syntax needs escaped.
    mutating func quoted(_ s: String) {
        bytes.append(0x22)
        for b in s.utf8 {
            switch b {
            case 0x22: text("\\\"")
            case 0x5C: text("\\\\")
            case 0x0A: text("\\n")
            case 0x0D: text("\\r")
            case 0x09: text("\\t")
            default: bytes.append(b)
            }
        }
        bytes.append(0x22)
    }

    /// A path in angle brackets, `</a/b>` or `</a/b.property>`, from already valid identifiers.
    mutating func path(_ components: [String], property: StaticString? = nil) {
        bytes.append(0x3C)
        for c in components {
            bytes.append(0x2F)
            text(c)
        }
        if let property {
            bytes.append(0x2E)
            text(property)
        }
        bytes.append(0x3E)
    }

    // MARK: Numbers

    mutating func int(_ v: Int) {
        withSpace(21) { $0.unsigned(UInt64(v.magnitude), negative: v < 0) }
    }

    mutating func unsigned(_ v: UInt64) {
        withSpace(20) { $0.unsigned(v) }
    }

    /// A fixed-point format: values rounded to `decimals` places, trailing zeros dropped.
    struct Fixed {
        let decimals: Int
        let scale: Double
        let divisor: UInt64

        init(decimals: Int) {
            let d = max(0, min(decimals, 15))
            var divisor: UInt64 = 1
            for _ in 0..<d { divisor *= 10 }
            self.decimals = d
            self.divisor = divisor
            self.scale = Double(divisor)
        }

        /// Enough places that rounding moves no coordinate by more than `relative` × `magnitude`.
        init(magnitude: Double, relative: Double) {
            var d = 0
            var step = 1.0
            let target = magnitude * relative
            while d < 15 && step > target {
                d += 1
                step /= 10
            }
            self.init(decimals: target > 0 && target.isFinite ? d : 6)
        }
    }

    /// Writes `v` as the shortest decimal that reads back as the same Float (for the few scalars
    /// of transforms and materials; bulk arrays use `Fixed`). Non-finite values are written as 0.
    mutating func general(_ v: Float) {
        withSpace(Cursor.maxFloatBytes) { $0.general(v) }
    }

    /// `(x, y, z)` in the shortest exact form.
    mutating func tuple3(_ v: SIMD3<Float>) {
        bytes.append(0x28)
        general(v.x)
        text(", ")
        general(v.y)
        text(", ")
        general(v.z)
        bytes.append(0x29)
    }

    /// `(x,y,z)` rounded with `format`.
    mutating func tuple3(_ v: SIMD3<Float>, _ format: Fixed) {
        withSpace(Cursor.maxTupleBytes) { $0.tuple3(v, format) }
    }

    // MARK: Arrays (the bulk of a layer, written straight into the buffer)

    /// `a,b,c…` for the tuples, rounded with `format`.
    mutating func tuples(_ items: [SIMD3<Float>], _ format: Fixed) {
        chunked(items.count, maxBytesPerItem: Cursor.maxTupleBytes + 1) { cursor, i in
            if i > 0 { cursor.put(0x2C) }
            cursor.tuple3(items[i], format)
        }
    }

    /// `a,b,c…` for the indices.
    mutating func indices(_ items: ArraySlice<UInt32>) {
        let first = items.startIndex
        chunked(items.count, maxBytesPerItem: 11) { cursor, i in
            if i > 0 { cursor.put(0x2C) }
            cursor.unsigned(UInt64(items[first + i]))
        }
    }

    /// `a,b,c…` for non-negative integers.
    mutating func integers(_ items: ArraySlice<Int32>) {
        let first = items.startIndex
        chunked(items.count, maxBytesPerItem: 12) { cursor, i in
            if i > 0 { cursor.put(0x2C) }
            let v = items[first + i]
            cursor.unsigned(UInt64(v.magnitude), negative: v < 0)
        }
    }

    /// `3,3,3…`, `count` times.
    mutating func threes(_ count: Int) {
        chunked(count, maxBytesPerItem: 2) { cursor, i in
            if i > 0 { cursor.put(0x2C) }
            cursor.put(0x33)
        }
    }

    /// Calls `body` for items `0..<count` in chunks, each chunk writing through a `Cursor` into
    /// space reserved at the end of the buffer (at most `maxBytesPerItem` per item).
    @inline(__always)
    private mutating func chunked(_ count: Int, maxBytesPerItem: Int,
                                  _ body: (inout Cursor, Int) -> Void) {
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

    /// Reserves `maxBytes` at the end of the buffer, lets `body` write into them through a
    /// cursor, and keeps what it wrote.
    @inline(__always)
    private mutating func withSpace(_ maxBytes: Int, _ body: (inout Cursor) -> Void) {
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: maxBytes))
        let used = bytes.withUnsafeMutableBufferPointer { buffer -> Int in
            var cursor = Cursor(base: buffer.baseAddress! + start)
            body(&cursor)
            precondition(cursor.offset <= maxBytes)
            return cursor.offset
        }
        bytes.removeLast(maxBytes - used)
    }

    /// Writes at a raw position; callers reserve the space first (see `withSpace`).
    struct Cursor {
        let base: UnsafeMutablePointer<UInt8>
        var offset = 0

        /// Most bytes one number takes: a fixed-point value is below 9e15 once scaled, so at most
        /// sign, 16 digits and a point (18); a Float's shortest description is at most 15
        /// (`-1.17549435e-38`). Rounded up for safety.
        static let maxFloatBytes = 24
        static let maxTupleBytes = 3 * maxFloatBytes + 4

        init(base: UnsafeMutablePointer<UInt8>) { self.base = base }

        @inline(__always)
        mutating func put(_ b: UInt8) {
            base[offset] = b
            offset += 1
        }

        @inline(__always)
        mutating func unsigned(_ v: UInt64, negative: Bool = false, minDigits: Int = 1) {
            if negative { put(0x2D) }
            var count = 1
            var rest = v
            while rest >= 10 {
                rest /= 10
                count += 1
            }
            if count < minDigits { count = minDigits }
            var n = v
            var i = offset + count
            while i > offset {
                i -= 1
                base[i] = 0x30 &+ UInt8(truncatingIfNeeded: n % 10)
                n /= 10
            }
            offset += count
        }

        /// `v` rounded to `format.decimals` places (`0.5`, `-12.25`, `3`); values too large for
        /// the fixed form fall back to `general`. Non-finite values are written as 0.
        @inline(__always)
        mutating func fixed(_ v: Float, _ format: Fixed) {
            var x = Double(v)
            guard x.isFinite else { put(0x30); return }
            let negative = x < 0
            if negative { x = -x }
            // Round half away from zero: x is not negative here, so truncating x + 0.5 does it
            // (a plain conversion, no libm call).
            let scaled = x * format.scale + 0.5
            guard scaled < 9.0e15 else { general(v); return }
            let q = UInt64(scaled)
            if q == 0 { put(0x30); return }
            let places = format.decimals
            guard places > 0 else { unsigned(q, negative: negative); return }
            // All digits of q (at least one before the point), then the point slid in before the
            // last `places` of them, then trailing zeros (and a bare point) dropped.
            unsigned(q, negative: negative, minDigits: places + 1)
            var i = offset
            while i > offset - places {
                base[i] = base[i - 1]
                i -= 1
            }
            base[i] = 0x2E
            offset += 1
            while base[offset - 1] == 0x30 { offset -= 1 }
            if base[offset - 1] == 0x2E { offset -= 1 }
        }

        mutating func general(_ v: Float) {
            guard v.isFinite else { put(0x30); return }
            if v.magnitude < 1e15, Float(Int64(v)) == v {
                unsigned(UInt64(v.magnitude), negative: v < 0)
                return
            }
            for b in v.description.utf8 { put(b) }
        }

        @inline(__always)
        mutating func tuple3(_ v: SIMD3<Float>, _ format: Fixed) {
            put(0x28)
            fixed(v.x, format)
            put(0x2C)
            fixed(v.y, format)
            put(0x2C)
            fixed(v.z, format)
            put(0x29)
        }
    }
}
