/// Whole-column decoding for the hot paths (atom_site): one pass per column into a plain array, so
/// the per-atom loop touches no enums, closures or reference counts.
extension CIFColumn {
    /// Values as Doubles; `.`/`?` become NaN. `invalidRow` is the first present value that is not a number.
    func allDoubles() -> (values: [Double], invalidRow: Int?) {
        switch storage {
        case .doubles(let v, let mask):
            guard let mask else { return (v, nil) }
            return (zip(v, mask).map { $1 == 0 ? $0 : .nan }, nil)
        case .ints(let v, let mask):
            return (v.indices.map { mask?[$0] ?? 0 == 0 ? Double(v[$0]) : .nan }, nil)
        case .strings(let v, let mask):
            var invalid: Int? = nil
            let out = v.indices.map { i -> Double in
                guard mask?[i] ?? 0 == 0 else { return .nan }
                if let d = NumberParsing.double(v[i]) { return d }
                if invalid == nil { invalid = i }
                return .nan
            }
            return (out, invalid)
        case .text(let t):
            var out = [Double](repeating: .nan, count: t.count)
            var invalid: Int? = nil
            t.forEachToken { row, bytes in
                guard let bytes else { return }
                if let d = NumberParsing.double(bytes) { out[row] = d } else if invalid == nil { invalid = row }
            }
            return (out, invalid)
        }
    }

    /// Values as Int32; `.`/`?` become `missing`. `invalidRow` is the first present value that is not an integer in range.
    func allInts(missing: Int32 = .min) -> (values: [Int32], invalidRow: Int?) {
        switch storage {
        case .ints(let v, let mask):
            guard let mask else { return (v, nil) }
            return (zip(v, mask).map { $1 == 0 ? $0 : missing }, nil)
        case .doubles(let v, let mask):
            var invalid: Int? = nil
            let out = v.indices.map { i -> Int32 in
                guard mask?[i] ?? 0 == 0 else { return missing }
                guard v[i].isFinite, abs(v[i]) < 2e9 else { if invalid == nil { invalid = i }; return missing }
                return Int32(v[i].rounded())
            }
            return (out, invalid)
        case .strings(let v, let mask):
            var invalid: Int? = nil
            let out = v.indices.map { i -> Int32 in
                guard mask?[i] ?? 0 == 0 else { return missing }
                if let n = NumberParsing.int(v[i]) { return Int32(n) }
                if invalid == nil { invalid = i }
                return missing
            }
            return (out, invalid)
        case .text(let t):
            var out = [Int32](repeating: missing, count: t.count)
            var invalid: Int? = nil
            t.forEachToken { row, bytes in
                guard let bytes else { return }
                if let n = NumberParsing.int(bytes) { out[row] = Int32(n) } else if invalid == nil { invalid = row }
            }
            return (out, invalid)
        }
    }

    /// Values as Strings, "" for `.`/`?`.
    func allStrings() -> [String] {
        switch storage {
        case .strings(let v, let mask):
            guard let mask else { return v }
            return zip(v, mask).map { $1 == 0 ? $0 : "" }
        case .text(let t):
            var out = [String](repeating: "", count: t.count)
            t.forEachToken { row, bytes in if let bytes { out[row] = String(decoding: bytes, as: UTF8.self) } }
            return out
        default:
            return (0..<count).map { string($0) ?? "" }
        }
    }

    /// Identifiers packed as `ShortKey`s (empty for `.`/`?`), for cheap per-atom comparison.
    func allKeys() -> [ShortKey] {
        switch storage {
        case .text(let t):
            var out = [ShortKey](repeating: ShortKey.empty, count: t.count)
            t.forEachToken { row, bytes in if let bytes { out[row] = ShortKey(bytes) } }
            return out
        default:
            return allStrings().map { s in var s = s; return s.withUTF8 { ShortKey($0) } }
        }
    }

    /// One-character values (alternate location, insertion code) as a byte, 0 when missing or longer.
    func allSingleBytes() -> [UInt8] {
        switch storage {
        case .text(let t):
            var out = [UInt8](repeating: 0, count: t.count)
            t.forEachToken { row, bytes in if let bytes, bytes.count == 1 { out[row] = bytes[0] } }
            return out
        default:
            return allStrings().map { $0.utf8.count == 1 ? $0.utf8.first ?? 0 : 0 }
        }
    }
}

extension CIFTextColumn {
    /// Calls `body(row, bytes)` for every row; bytes are nil for `.` and `?`.
    func forEachToken(_ body: (Int, UnsafeBufferPointer<UInt8>?) -> Void) {
        source.bytes.withUnsafeBufferPointer { b in
            starts.starts.withUnsafeBufferPointer { s in
                starts.lengths.withUnsafeBufferPointer { l in
                    var k = firstToken
                    for row in 0..<count {
                        let len = Int(l[k])
                        if len < 0 { body(row, nil) } else {
                            let st = Int(s[k])
                            body(row, UnsafeBufferPointer(rebasing: b[st..<(st + len)]))
                        }
                        k += stride
                    }
                }
            }
        }
    }
}

extension CIFColumn {
    static let hetatmKey: ShortKey = { var s = "HETATM"; return s.withUTF8 { ShortKey($0) } }()
}
