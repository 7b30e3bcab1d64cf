/// A CIF data block as categories of columns. Both the text (mmCIF) parser and the BinaryCIF
/// decoder produce this, so the mmCIF reader interprets one representation.
public struct CIFBlock: Sendable {
    public var name: String
    /// Keyed by category name in lower case without the leading underscore, e.g. "atom_site".
    public var categories: [String: CIFCategory] = [:]
    public init(name: String) { self.name = name }

    public subscript(category: String) -> CIFCategory? { categories[category] }

    /// The column of a whole tag in lower case without its underscore, written either way:
    /// "atom_site_fract_x" finds CIF1's `_atom_site_fract_x` (in whatever category its loop was
    /// given) and mmCIF's `_atom_site.fract_x`; "cell_length_a" a single item.
    public func column(tag: String) -> CIFColumn? {
        let t = Array(tag.utf8)
        if let dot = t.firstIndex(of: 0x2E) {
            return categories[String(decoding: t[..<dot], as: UTF8.self)]?[String(decoding: t[(dot + 1)...], as: UTF8.self)]
        }
        if let single = categories[tag]?[""] { return single }
        // The category is a beginning of the tag ending before an underscore; the field the rest.
        var k = t.count - 1
        while k > 0 {
            if t[k] == 0x5F, let c = categories[String(decoding: t[..<k], as: UTF8.self)],
               let column = c[String(decoding: t[(k + 1)...], as: UTF8.self)] { return column }
            k -= 1
        }
        return nil
    }
}

public struct CIFCategory: Sendable {
    public var name: String
    public var rowCount: Int
    /// Keyed by field name in lower case, e.g. "cartn_x".
    public var columns: [String: CIFColumn] = [:]
    public init(name: String, rowCount: Int) { self.name = name; self.rowCount = rowCount }

    public subscript(field: String) -> CIFColumn? { columns[field] }
}

/// Whether a CIF value is present, or `.` (inapplicable) or `?` (unknown).
public enum CIFValueState: UInt8, Sendable { case present = 0, inapplicable = 1, unknown = 2 }

/// One column of a category. Values are read by row; `.` and `?` read as nil.
public struct CIFColumn: Sendable {
    public enum Storage: Sendable {
        /// Values held as byte ranges of the original text (no copy until asked for).
        case text(CIFTextColumn)
        case strings([String], mask: [UInt8]?)
        case ints([Int32], mask: [UInt8]?)
        case doubles([Double], mask: [UInt8]?)
    }
    public var storage: Storage
    public init(_ storage: Storage) { self.storage = storage }

    public var count: Int {
        switch storage {
        case .text(let t): return t.count
        case .strings(let v, _): return v.count
        case .ints(let v, _): return v.count
        case .doubles(let v, _): return v.count
        }
    }

    @inline(__always) static func state(_ mask: [UInt8]?, _ row: Int) -> CIFValueState {
        guard let mask else { return .present }
        guard row >= 0, row < mask.count else { return .unknown }
        return CIFValueState(rawValue: mask[row]) ?? .unknown
    }

    public func state(_ row: Int) -> CIFValueState {
        guard row >= 0, row < count else { return .unknown }
        switch storage {
        case .text(let t): return t.state(row)
        case .strings(_, let m), .ints(_, let m), .doubles(_, let m): return Self.state(m, row)
        }
    }

    public func string(_ row: Int) -> String? {
        guard row >= 0, row < count else { return nil }
        switch storage {
        case .text(let t): return t.string(row)
        case .strings(let v, let m): return Self.state(m, row) == .present ? v[row] : nil
        case .ints(let v, let m): return Self.state(m, row) == .present ? String(v[row]) : nil
        case .doubles(let v, let m): return Self.state(m, row) == .present ? Self.format(v[row]) : nil
        }
    }

    public func int(_ row: Int) -> Int? {
        guard row >= 0, row < count else { return nil }
        switch storage {
        case .text(let t): return t.int(row)
        case .strings(let v, let m): return Self.state(m, row) == .present ? Int(v[row]) : nil
        case .ints(let v, let m): return Self.state(m, row) == .present ? Int(v[row]) : nil
        case .doubles(let v, let m):
            guard Self.state(m, row) == .present, v[row].isFinite, abs(v[row]) < 1e15 else { return nil }
            return Int(v[row].rounded())
        }
    }

    public func double(_ row: Int) -> Double? {
        guard row >= 0, row < count else { return nil }
        switch storage {
        case .text(let t): return t.double(row)
        case .strings(let v, let m): return Self.state(m, row) == .present ? Double(v[row]) : nil
        case .ints(let v, let m): return Self.state(m, row) == .present ? Double(v[row]) : nil
        case .doubles(let v, let m): return Self.state(m, row) == .present ? v[row] : nil
        }
    }

    /// Calls `body` with the raw bytes of a value without making a String, where the storage allows.
    public func withBytes<R>(_ row: Int, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        switch storage {
        case .text(let t): return t.withBytes(row, body)
        default:
            var s = string(row) ?? ""
            return s.withUTF8(body)
        }
    }

    static func format(_ d: Double) -> String {
        if d == d.rounded(), abs(d) < 1e15 { return String(Int(d)) }
        return String(d)
    }
}

/// Shared, immutable bytes of a text CIF file; columns point into it.
public final class CIFSource: Sendable {
    public let bytes: [UInt8]
    public init(bytes: [UInt8]) { self.bytes = bytes }
}

/// A column of a text CIF category: value `row` is token `firstToken + row * stride`.
public struct CIFTextColumn: Sendable {
    public let source: CIFSource
    /// Token start offsets and lengths into `source.bytes`; length < 0 marks `.` (-1) or `?` (-2).
    public let starts: CIFTokenArray
    public let firstToken: Int
    public let stride: Int
    public let count: Int
    /// Whether tokens may need unquoting/unfolding (text fields keep their bytes verbatim).
    public init(source: CIFSource, tokens: CIFTokenArray, firstToken: Int, stride: Int, count: Int) {
        self.source = source; self.starts = tokens; self.firstToken = firstToken; self.stride = stride; self.count = count
    }

    /// The token of `row`; rows past the column's end read as `?` rather than trapping.
    @inline(__always) func token(_ row: Int) -> (start: Int, length: Int) {
        guard row >= 0, row < count else { return (0, -2) }
        let i = firstToken + row * stride
        return (Int(starts.starts[i]), Int(starts.lengths[i]))
    }

    public func state(_ row: Int) -> CIFValueState {
        let t = token(row)
        return t.length == -1 ? .inapplicable : t.length == -2 ? .unknown : .present
    }

    public func string(_ row: Int) -> String? {
        let t = token(row)
        guard t.length >= 0 else { return nil }
        return source.bytes.withUnsafeBufferPointer { b in
            String(decoding: UnsafeBufferPointer(rebasing: b[t.start..<(t.start + t.length)]), as: UTF8.self)
        }
    }

    public func withBytes<R>(_ row: Int, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        let t = token(row)
        return source.bytes.withUnsafeBufferPointer { b in
            body(t.length >= 0 ? UnsafeBufferPointer(rebasing: b[t.start..<(t.start + t.length)]) : UnsafeBufferPointer(rebasing: b[0..<0]))
        }
    }

    public func int(_ row: Int) -> Int? {
        let t = token(row)
        guard t.length > 0 else { return nil }
        return source.bytes.withUnsafeBufferPointer { b in
            NumberParsing.int(UnsafeBufferPointer(rebasing: b[t.start..<(t.start + t.length)]))
        }
    }

    public func double(_ row: Int) -> Double? {
        let t = token(row)
        guard t.length > 0 else { return nil }
        return source.bytes.withUnsafeBufferPointer { b in
            NumberParsing.double(UnsafeBufferPointer(rebasing: b[t.start..<(t.start + t.length)]))
        }
    }
}

/// Token positions of a parsed text CIF, shared by all columns of the file.
public final class CIFTokenArray: Sendable {
    public let starts: [Int32]
    public let lengths: [Int32]
    public init(starts: [Int32], lengths: [Int32]) { self.starts = starts; self.lengths = lengths }
}
