import TextOutput

/// How numbers of one array (a mesh's coordinates, unit normals, colours) are written in OBJ, PLY
/// and DAE: with a fixed number of decimals, so all get the same absolute precision and no
/// per-number scaling is needed.
struct DecimalFormat {
    /// 0...9 decimals, or -1: fall back to `significant` digits per number.
    let decimals: Int
    let scale: Double
    let significant: Int

    init(decimals: Int) {
        self.decimals = min(max(decimals, 0), 9)
        scale = TextBuffer.pow10(self.decimals)
        significant = 6
    }

    /// Enough decimals for `significant` digits of the largest magnitude; numbers far smaller than
    /// 1e-4 (a scene in the wrong unit) fall back to significant digits per number.
    init(magnitude: Float, significant: Int = 6) {
        let a = Double(magnitude)
        if a.isFinite && a >= 1e-4 && a < 1e9 {
            decimals = min(max(significant - 1 - TextBuffer.decade(a), 0), 9)
            scale = TextBuffer.pow10(decimals)
        } else if a.isFinite && a >= 1e9 {
            decimals = 0; scale = 1
        } else {
            decimals = -1; scale = 1
        }
        self.significant = significant
    }
}

extension TextBuffer.Cursor {
    /// `x` with `format`'s decimals, trailing zeros dropped ("0.25", "-3", "0").
    @inline(__always)
    mutating func number(_ x: Float, _ format: DecimalFormat) {
        guard format.decimals >= 0 else { significant(x, digits: format.significant); return }
        guard x.isFinite else { put(48); return }
        guard Double(x.magnitude) < 1e9 else { significant(x, digits: 9); return }
        rounded(x, scale: format.scale, decimals: format.decimals)
    }
}

extension TextBuffer {
    static let maxNumberBytes = Cursor.maxFloatBytes + 8

    /// `a b c` with `format`.
    mutating func numbers(_ v: SIMD3<Float>, _ format: DecimalFormat) {
        withSpace(3 * Self.maxNumberBytes + 2) { cursor in
            cursor.number(v.x, format); cursor.put(32); cursor.number(v.y, format); cursor.put(32); cursor.number(v.z, format)
        }
    }

    /// `a b c d` with `format`.
    mutating func numbers(_ v: SIMD4<Float>, _ format: DecimalFormat) {
        withSpace(4 * Self.maxNumberBytes + 3) { cursor in
            cursor.number(v.x, format); cursor.put(32); cursor.number(v.y, format); cursor.put(32)
            cursor.number(v.z, format); cursor.put(32); cursor.number(v.w, format)
        }
    }

    /// A JSON string literal.
    mutating func jsonString(_ s: String) { quoted(s, escapingControls: true) }

    /// Text for XML content or attribute values: markup characters escaped, control characters that
    /// XML 1.0 forbids written as spaces.
    mutating func xml(_ s: String) {
        for b in s.utf8 {
            switch b {
            case 38: text("&amp;")
            case 60: text("&lt;")
            case 62: text("&gt;")
            case 34: text("&quot;")
            case 39: text("&apos;")
            case 9, 10, 13: byte(b)
            case 0..<32, 127: byte(32)
            default: byte(b)
            }
        }
    }
}

/// A name usable as one whitespace-free token (OBJ and MTL names): whitespace and control characters
/// become underscores; an empty name becomes `fallback`.
func tokenName(_ s: String, fallback: String) -> String {
    var out: [UInt8] = []
    out.reserveCapacity(s.utf8.count)
    for b in s.utf8 { out.append(b <= 32 || b == 127 ? 95 : b) }
    return out.isEmpty ? fallback : String(decoding: out, as: UTF8.self)
}

/// Makes names unique by appending _2, _3, … to repeats (in order, so deterministic).
func uniqueNames(_ names: [String]) -> [String] {
    var used = Set<String>()
    return names.map { name in
        var candidate = name
        var k = 2
        while used.contains(candidate) { candidate = "\(name)_\(k)"; k += 1 }
        used.insert(candidate)
        return candidate
    }
}
