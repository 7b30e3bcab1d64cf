import TextOutput

/// USDA (USD's text format) on a `TextBuffer`: keywords, quoted strings, paths, and the numbers of
/// a layer, so that large meshes stream out fast and the output is the same on every platform.
extension TextBuffer {
    /// A fixed-point format for USDA arrays: values rounded to `decimals` places, trailing zeros dropped.
    struct USDAFixed {
        let decimals: Int
        let scale: Double

        init(decimals: Int) {
            let d = max(0, min(decimals, 15))
            self.decimals = d
            self.scale = TextBuffer.pow10(d)
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

    // MARK: Text

    mutating func newline() { byte(0x0A) }

    mutating func indent(_ level: Int) { repeated(0x20, level * 4) }

    /// Starts a line at `level`, writes `s`.
    mutating func line(_ level: Int, _ s: StaticString) {
        indent(level)
        text(s)
        newline()
    }

    // MARK: Numbers

    /// `(x, y, z)` in the shortest exact form (for the few scalars of transforms and materials;
    /// bulk arrays use `USDAFixed`).
    mutating func tuple3(_ v: SIMD3<Float>) {
        byte(0x28)
        shortest(v.x)
        text(", ")
        shortest(v.y)
        text(", ")
        shortest(v.z)
        byte(0x29)
    }

    /// `(x,y,z)` rounded with `format`.
    mutating func tuple3(_ v: SIMD3<Float>, _ format: USDAFixed) {
        withSpace(Cursor.maxTupleBytes) { $0.tuple3(v, format) }
    }

    // MARK: Arrays (the bulk of a layer, written straight into the buffer)

    /// `a,b,c…` for the tuples, rounded with `format`.
    mutating func tuples(_ items: [SIMD3<Float>], _ format: USDAFixed) {
        chunked(items.count, maxBytesPerItem: Cursor.maxTupleBytes + 1) { cursor, i in
            if i > 0 { cursor.put(0x2C) }
            cursor.tuple3(items[i], format)
        }
    }

    /// `a,b,c…` for integers.
    mutating func integers(_ items: ArraySlice<Int32>) {
        let first = items.startIndex
        chunked(items.count, maxBytesPerItem: 12) { cursor, i in
            if i > 0 { cursor.put(0x2C) }
            let v = items[first + i]
            cursor.unsigned(UInt64(v.magnitude), negative: v < 0)
        }
    }
}

extension TextBuffer.Cursor {
    static let maxTupleBytes = 3 * maxFloatBytes + 4

    /// `v` rounded with `format`; values too large for the fixed form are written in the
    /// shortest exact form, non-finite values as 0.
    @inline(__always)
    mutating func fixed(_ v: Float, _ format: TextBuffer.USDAFixed) {
        guard v.isFinite else { put(0x30); return }
        guard Double(v.magnitude) * format.scale + 0.5 < 9.0e15 else { shortest(v); return }
        rounded(v, scale: format.scale, decimals: format.decimals)
    }

    @inline(__always)
    mutating func tuple3(_ v: SIMD3<Float>, _ format: TextBuffer.USDAFixed) {
        put(0x28)
        fixed(v.x, format)
        put(0x2C)
        fixed(v.y, format)
        put(0x2C)
        fixed(v.z, format)
        put(0x29)
    }
}
