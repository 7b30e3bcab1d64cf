/// Decodes BinaryCIF (https://github.com/molstar/BinaryCIF/blob/master/encoding.md) into the same
/// `CIFBlock`s the text CIF parser produces.
///
/// A BinaryCIF file is MessagePack holding
/// `{version, encoder, dataBlocks: [{header, categories: [{name, rowCount, columns: [{name, data, mask}]}]}]}`,
/// where each `data`/`mask` is `{data: bin, encoding: [...]}` and the encodings are undone last to first.
/// Malformed input throws `StructureReadError` naming the category and column; nothing traps, and the
/// values a file may make the decoder create (run-length expansion) are capped.
public enum BinaryCIFDecoder {
    /// Default for `maxDecodedValues`: the most values the run-length steps of one file may expand to,
    /// and the largest row count accepted, a guard against tiny files claiming huge arrays.
    public static let defaultMaxDecodedValues = 500_000_000
    /// The longest encoding list accepted for one array (real files use up to 4 steps).
    static let maxEncodingSteps = 16

    /// Decodes every data block of a BinaryCIF file (already gunzipped).
    /// - Parameters:
    ///   - fileName: used in error messages.
    ///   - maxDecodedValues: cap on the values run-length decoding may create in the whole file, and on
    ///     any category's row count.
    ///   - only: when given, categories (lower case, no underscore) outside this set are skipped
    ///     undecoded: a reader that needs a few categories does not pay for the rest.
    public static func decode(_ bytes: [UInt8], fileName: String, maxDecodedValues: Int = defaultMaxDecodedValues,
                              only: Set<String>? = nil) throws -> [CIFBlock] {
        let root: MessagePackValue
        do {
            root = try MessagePack.decode(bytes)
        } catch {
            throw StructureReadError(file: fileName, byteOffset: error.offset, message: "malformed BinaryCIF (MessagePack): \(error.message)")
        }
        guard let rootMap = root.mapValue else {
            throw StructureReadError(file: fileName, byteOffset: 0, message: "not a BinaryCIF file: the top level is not a MessagePack map")
        }
        guard let dataBlocks = rootMap["dataBlocks"]?.arrayValue else {
            throw StructureReadError(file: fileName, byteOffset: 0, message: "not a BinaryCIF file: no 'dataBlocks' array")
        }
        var state = DecodeState(file: fileName, budget: maxDecodedValues, maxRows: maxDecodedValues)
        var blocks: [CIFBlock] = []
        blocks.reserveCapacity(dataBlocks.count)
        for (index, blockValue) in dataBlocks.enumerated() {
            guard let categories = blockValue["categories"]?.arrayValue else {
                throw StructureReadError(file: fileName, field: "data block \(index + 1)", message: "no 'categories' array")
            }
            var block = CIFBlock(name: blockValue["header"]?.stringValue ?? "")
            block.categories.reserveCapacity(categories.count)
            for categoryValue in categories {
                guard let category = try decodeCategory(categoryValue, blockIndex: index, state: &state, only: only) else { continue }
                block.categories[category.name] = category
            }
            blocks.append(block)
        }
        return blocks
    }

    // MARK: - Categories and columns

    struct DecodeState {
        let file: String
        /// Values run-length decoding may still create.
        var budget: Int
        /// The largest row count accepted.
        var maxRows: Int
    }

    /// Where an error happened: the category (as written, e.g. "_atom_site"), the column, and the
    /// byte offset of the data concerned. The field text is only built when an error is thrown.
    struct Site {
        let file: String
        let category: String
        var column: String? = nil
        var offset: Int? = nil

        func at(_ offset: Int?) -> Site {
            var s = self
            s.offset = offset
            return s
        }

        func error(_ message: String) -> StructureReadError {
            StructureReadError(file: file, byteOffset: offset, field: column.map { "\(category).\($0)" } ?? category, message: message)
        }
    }

    /// Lower case, without allocating when the name already is lower-case ASCII.
    static func lowercaseKey(_ name: Substring) -> String {
        if name.utf8.allSatisfy({ $0 < 0x80 && !($0 >= 0x41 && $0 <= 0x5A) }) { return String(name) }
        return name.lowercased()
    }

    static func decodeCategory(_ value: MessagePackValue, blockIndex: Int, state: inout DecodeState, only: Set<String>? = nil) throws -> CIFCategory? {
        var rawName: String? = nil, rowCountValue: MessagePackValue? = nil, columns: [MessagePackValue]? = nil
        value.mapValue?.forEachStringKey { key, v in
            switch Key(key) {
            case .name: rawName = v.stringValue
            case .rowCount: rowCountValue = v
            case .columns: columns = v.arrayValue
            default: break
            }
        }
        guard let rawName else {
            throw StructureReadError(file: state.file, field: "data block \(blockIndex + 1)", message: "category without a name")
        }
        let key = lowercaseKey(rawName.hasPrefix("_") ? rawName.dropFirst() : rawName[...])
        if let only, !only.contains(key) { return nil }
        let firstOffset = columns?.first?["data"]?["data"]?.binaryValue?.startIndex
        let site = Site(file: state.file, category: rawName, offset: firstOffset)
        guard let rowCount = rowCountValue?.intValue else { throw site.error("no integer 'rowCount'") }
        guard rowCount >= 0, rowCount <= state.maxRows else { throw site.error("rowCount \(rowCount) is out of range") }
        guard let columns else { throw site.error("no 'columns' array") }

        var category = CIFCategory(name: key, rowCount: rowCount)
        category.columns.reserveCapacity(columns.count)
        for columnValue in columns {
            var columnName: String? = nil, data: MessagePackValue? = nil, mask: MessagePackValue? = nil
            columnValue.mapValue?.forEachStringKey { key, v in
                switch Key(key) {
                case .name: columnName = v.stringValue
                case .data: data = v
                case .mask: mask = v
                default: break
                }
            }
            guard let columnName else { throw site.error("column without a name") }
            let columnSite = Site(file: state.file, category: rawName, column: columnName)
            guard let data else { throw columnSite.error("column has no 'data'") }
            let column = try decodeColumn(data: data, mask: mask, site: columnSite, rowCount: rowCount, state: &state)
            category.columns[lowercaseKey(columnName[...])] = column
        }
        return category
    }

    static func decodeColumn(data: MessagePackValue, mask maskValue: MessagePackValue?, site columnSite: Site, rowCount: Int, state: inout DecodeState) throws -> CIFColumn {
        let (values, site) = try decodeData(data, what: "data", site: columnSite, state: &state)

        var mask: [UInt8]? = nil
        if let maskValue, !maskValue.isNull {
            let (decoded, maskSite) = try decodeData(maskValue, what: "mask", site: columnSite, state: &state)
            switch decoded {
            case .ints(let m):
                guard m.count == rowCount else {
                    throw maskSite.error("mask has \(m.count) values but the category has \(rowCount) rows")
                }
                mask = try maskBytes(m, site: maskSite)
            default:
                throw maskSite.error("mask does not decode to integers")
            }
        }

        func checkCount(_ n: Int) throws {
            guard n == rowCount else { throw site.error("decodes to \(n) values but the category has \(rowCount) rows") }
        }
        switch values {
        case .ints(let v): try checkCount(v.count); return CIFColumn(.ints(v, mask: mask))
        case .doubles(let v): try checkCount(v.count); return CIFColumn(.doubles(v, mask: mask))
        case .strings(let v): try checkCount(v.count); return CIFColumn(.strings(v, mask: mask))
        case .bytes: throw site.error("encoding list leaves raw bytes (no ByteArray step)")
        }
    }

    /// Mask values as bytes, checked to be 0, 1 or 2; nil when all are 0 (every value present).
    static func maskBytes(_ values: [Int32], site: Site) throws -> [UInt8]? {
        let (out, bad, anyAbsent) = values.withUnsafeBufferPointer { src -> ([UInt8], Int32?, Bool) in
            var bad: Int32? = nil
            var anyAbsent = false
            for i in 0..<src.count where src[i] != 0 {
                anyAbsent = true
                if src[i] < 0 || src[i] > 2 { bad = src[i]; break }
            }
            guard anyAbsent, bad == nil else { return ([], bad, anyAbsent) }
            let out = [UInt8](unsafeUninitializedCapacity: src.count) { dst, n in
                for i in 0..<src.count { dst[i] = UInt8(truncatingIfNeeded: src[i]) }
                n = src.count
            }
            return (out, nil, true)
        }
        if let bad { throw site.error("mask value \(bad) is not 0, 1 or 2") }
        return anyAbsent ? out : nil
    }

    /// Decodes an `{data: bin, encoding: [...]}` map; also returns the site at the data's offset.
    static func decodeData(_ value: MessagePackValue, what: String, site columnSite: Site, state: inout DecodeState) throws -> (Decoded, Site) {
        var bytes: ArraySlice<UInt8>? = nil, encodings: [MessagePackValue]? = nil
        value.mapValue?.forEachStringKey { key, v in
            switch Key(key) {
            case .data: bytes = v.binaryValue
            case .encoding: encodings = v.arrayValue
            default: break
            }
        }
        guard let bytes else { throw columnSite.error("\(what) has no binary 'data'") }
        let site = columnSite.at(bytes.startIndex)
        guard let encodings else { throw site.error("\(what) has no 'encoding' list") }
        return (try applyEncodings(encodings, to: .bytes(bytes), site: site, state: &state, depth: 0), site)
    }

    /// The map keys BinaryCIF uses, told apart by first letter before one comparison (a `switch`
    /// over strings would compare against every case in turn, which showed in profiles).
    enum Key {
        case name, rowCount, columns, data, mask, encoding, kind, type, srcSize, byteCount, origin, numSteps
        case isUnsigned, factor, min, max, stringData, offsets, dataEncoding, offsetEncoding, other

        init(_ key: String) {
            var key = key
            self = key.withUTF8 { Key.classify($0) }
        }

        static func classify(_ b: UnsafeBufferPointer<UInt8>) -> Key {
            func eq(_ literal: StaticString) -> Bool {
                guard b.count == literal.utf8CodeUnitCount else { return false }
                let p = literal.utf8Start
                for i in 0..<b.count where b[i] != p[i] { return false }
                return true
            }
            guard let first = b.first else { return .other }
            switch first {
            case UInt8(ascii: "b"): return eq("byteCount") ? .byteCount : .other
            case UInt8(ascii: "c"): return eq("columns") ? .columns : .other
            case UInt8(ascii: "d"): return eq("data") ? .data : eq("dataEncoding") ? .dataEncoding : .other
            case UInt8(ascii: "e"): return eq("encoding") ? .encoding : .other
            case UInt8(ascii: "f"): return eq("factor") ? .factor : .other
            case UInt8(ascii: "i"): return eq("isUnsigned") ? .isUnsigned : .other
            case UInt8(ascii: "k"): return eq("kind") ? .kind : .other
            case UInt8(ascii: "m"): return eq("mask") ? .mask : eq("min") ? .min : eq("max") ? .max : .other
            case UInt8(ascii: "n"): return eq("name") ? .name : eq("numSteps") ? .numSteps : .other
            case UInt8(ascii: "o"): return eq("origin") ? .origin : eq("offsets") ? .offsets : eq("offsetEncoding") ? .offsetEncoding : .other
            case UInt8(ascii: "r"): return eq("rowCount") ? .rowCount : .other
            case UInt8(ascii: "s"): return eq("srcSize") ? .srcSize : eq("stringData") ? .stringData : .other
            case UInt8(ascii: "t"): return eq("type") ? .type : .other
            default: return .other
            }
        }
    }

    // MARK: - Encodings

    /// An array between decoding steps.
    enum Decoded {
        case bytes(ArraySlice<UInt8>)
        case ints([Int32])
        case doubles([Double])
        case strings([String])

        var kindName: String {
            switch self {
            case .bytes: return "raw bytes"
            case .ints: return "integers"
            case .doubles: return "floating-point numbers"
            case .strings: return "strings"
            }
        }
    }

    /// The parameters of one encoding step, read from its map in one pass.
    struct EncodingSpec {
        var kind: String?
        var type: Int?, srcSize: Int?, byteCount: Int?, origin: Int?, numSteps: Int?
        var isUnsigned: Bool?
        var factor: Double?, min: Double?, max: Double?
        var stringData: String?, offsets: ArraySlice<UInt8>?
        var dataEncoding: [MessagePackValue]?, offsetEncoding: [MessagePackValue]?

        init(_ value: MessagePackValue) {
            value.mapValue?.forEachStringKey { key, v in
                switch Key(key) {
                case .kind: kind = v.stringValue
                case .type: type = v.intValue
                case .srcSize: srcSize = v.intValue
                case .byteCount: byteCount = v.intValue
                case .origin: origin = v.intValue
                case .numSteps: numSteps = v.intValue
                case .isUnsigned: isUnsigned = v.boolValue
                case .factor: factor = v.doubleValue
                case .min: min = v.doubleValue
                case .max: max = v.doubleValue
                case .stringData: stringData = v.stringValue
                case .offsets: offsets = v.binaryValue
                case .dataEncoding: dataEncoding = v.arrayValue
                case .offsetEncoding: offsetEncoding = v.arrayValue
                default: break
                }
            }
        }
    }

    /// Undoes `encodings`, last first.
    static func applyEncodings(_ encodings: [MessagePackValue], to input: Decoded, site: Site, state: inout DecodeState, depth: Int) throws -> Decoded {
        guard encodings.count <= maxEncodingSteps else {
            throw site.error("\(encodings.count) encoding steps (at most \(maxEncodingSteps) accepted)")
        }
        var current = input
        for encoding in encodings.reversed() {
            current = try applyEncoding(EncodingSpec(encoding), to: current, site: site, state: &state, depth: depth)
        }
        return current
    }

    static func applyEncoding(_ spec: EncodingSpec, to input: Decoded, site: Site, state: inout DecodeState, depth: Int) throws -> Decoded {
        guard let kind = spec.kind else { throw site.error("encoding without a 'kind'") }

        func ints() throws -> [Int32] {
            guard case .ints(let v) = input else { throw site.error("\(kind) expects integers but got \(input.kindName)") }
            return v
        }
        func need(_ v: Int?, _ key: String) throws -> Int {
            guard let v else { throw site.error("\(kind) encoding has no integer '\(key)'") }
            return v
        }
        func need(_ v: Double?, _ key: String) throws -> Double {
            guard let v, v.isFinite else { throw site.error("\(kind) encoding has no finite number '\(key)'") }
            return v
        }

        switch kind {
        case "ByteArray":
            guard case .bytes(let raw) = input else { throw site.error("ByteArray expects raw bytes but got \(input.kindName)") }
            return try byteArray(raw, type: try need(spec.type, "type"), site: site)

        case "FixedPoint":
            let factor = try need(spec.factor, "factor")
            guard factor != 0 else { throw site.error("FixedPoint factor is 0") }
            return .doubles(fixedPoint(try ints(), factor: factor))

        case "IntervalQuantization":
            let lo = try need(spec.min, "min"), hi = try need(spec.max, "max"), steps = try need(spec.numSteps, "numSteps")
            guard steps >= 2 else { throw site.error("IntervalQuantization numSteps \(steps) is below 2") }
            return .doubles(intervalQuantization(try ints(), min: lo, max: hi, numSteps: steps))

        case "RunLength":
            return .ints(try runLength(try ints(), srcSize: try need(spec.srcSize, "srcSize"), site: site, state: &state))

        case "Delta":
            let origin = try need(spec.origin, "origin")
            guard let o = Int32(exactly: origin) else { throw site.error("Delta origin \(origin) does not fit 32 bits") }
            return .ints(delta(try ints(), origin: o))

        case "IntegerPacking":
            let byteCount = try need(spec.byteCount, "byteCount")
            return .ints(try integerPacking(try ints(), byteCount: byteCount, isUnsigned: spec.isUnsigned ?? false,
                                            srcSize: try need(spec.srcSize, "srcSize"), site: site))

        case "StringArray":
            guard depth < 4 else { throw site.error("StringArray nested too deeply") }
            return .strings(try stringArray(spec, input: input, site: site, state: &state, depth: depth))

        default:
            throw site.error("unknown encoding kind '\(kind)'")
        }
    }

    /// Little-endian numbers. Int8...Uint16 and Int32 become Int32; Uint32 too unless a value
    /// exceeds Int32.max (then Double); Float32/Float64 become Double.
    static func byteArray(_ raw: ArraySlice<UInt8>, type: Int, site: Site) throws -> Decoded {
        let size: Int
        switch type {
        case 1, 4: size = 1
        case 2, 5: size = 2
        case 3, 6, 32: size = 4
        case 33: size = 8
        default: throw site.error("ByteArray type \(type) is not one of Int8(1) Int16(2) Int32(3) Uint8(4) Uint16(5) Uint32(6) Float32(32) Float64(33)")
        }
        guard raw.count % size == 0 else {
            throw site.error("ByteArray of \(raw.count) bytes is not a whole number of \(size)-byte values")
        }
        let n = raw.count / size
        return raw.withUnsafeBytes { src -> Decoded in
            func intArray(_ load: (Int) -> Int32) -> [Int32] {
                [Int32](unsafeUninitializedCapacity: n) { dst, count in
                    for i in 0..<n { dst[i] = load(i) }
                    count = n
                }
            }
            func doubleArray(_ load: (Int) -> Double) -> [Double] {
                [Double](unsafeUninitializedCapacity: n) { dst, count in
                    for i in 0..<n { dst[i] = load(i) }
                    count = n
                }
            }
            switch type {
            case 1: return .ints(intArray { Int32(Int8(bitPattern: src[$0])) })
            case 4: return .ints(intArray { Int32(src[$0]) })
            case 2: return .ints(intArray { Int32(Int16(littleEndian: src.loadUnaligned(fromByteOffset: $0 &* 2, as: Int16.self))) })
            case 5: return .ints(intArray { Int32(UInt16(littleEndian: src.loadUnaligned(fromByteOffset: $0 &* 2, as: UInt16.self))) })
            case 3: return .ints(intArray { Int32(littleEndian: src.loadUnaligned(fromByteOffset: $0 &* 4, as: Int32.self)) })
            case 6:
                var fits = true
                for i in 0..<n where UInt32(littleEndian: src.loadUnaligned(fromByteOffset: i &* 4, as: UInt32.self)) > UInt32(Int32.max) {
                    fits = false
                    break
                }
                if fits {
                    return .ints(intArray { Int32(truncatingIfNeeded: UInt32(littleEndian: src.loadUnaligned(fromByteOffset: $0 &* 4, as: UInt32.self))) })
                }
                return .doubles(doubleArray { Double(UInt32(littleEndian: src.loadUnaligned(fromByteOffset: $0 &* 4, as: UInt32.self))) })
            case 32:
                return .doubles(doubleArray { Double(Float(bitPattern: UInt32(littleEndian: src.loadUnaligned(fromByteOffset: $0 &* 4, as: UInt32.self)))) })
            default:
                return .doubles(doubleArray { Double(bitPattern: UInt64(littleEndian: src.loadUnaligned(fromByteOffset: $0 &* 8, as: UInt64.self))) })
            }
        }
    }

    /// Unique strings concatenated in `stringData`, cut at `offsets` (decoded by `offsetEncoding`);
    /// the input, decoded by `dataEncoding`, indexes them, -1 (any negative) meaning an empty string.
    /// Offsets count bytes when `stringData` is ASCII, else UTF-16 code units as Mol*'s encoder writes.
    static func stringArray(_ spec: EncodingSpec, input: Decoded, site: Site, state: inout DecodeState, depth: Int) throws -> [String] {
        guard let stringData = spec.stringData else { throw site.error("StringArray has no 'stringData' string") }
        guard let offsetBytes = spec.offsets else { throw site.error("StringArray has no binary 'offsets'") }
        guard let offsetEncoding = spec.offsetEncoding else { throw site.error("StringArray has no 'offsetEncoding' list") }
        guard let dataEncoding = spec.dataEncoding else { throw site.error("StringArray has no 'dataEncoding' list") }

        let offsetSite = site.at(offsetBytes.startIndex)
        guard case .ints(let offsets) = try applyEncodings(offsetEncoding, to: .bytes(offsetBytes), site: offsetSite, state: &state, depth: depth + 1) else {
            throw offsetSite.error("StringArray offsets do not decode to integers")
        }
        guard case .ints(let indices) = try applyEncodings(dataEncoding, to: input, site: site, state: &state, depth: depth + 1) else {
            throw site.error("StringArray indices do not decode to integers")
        }

        // The distinct strings, after an empty string at 0 for negative (null) indices: index i is entry i + 1.
        let uniqueCount = Swift.max(offsets.count - 1, 0)
        var table: [String] = [""]
        table.reserveCapacity(uniqueCount + 1)
        var badRange: (Int, Int, Int)? = nil
        var text = stringData
        let isASCII = text.withUTF8 { utf8 -> Bool in
            guard !utf8.contains(where: { $0 >= 0x80 }) else { return false }
            for k in 0..<uniqueCount {
                let a = Int(offsets[k]), b = Int(offsets[k + 1])
                guard a >= 0, a <= b, b <= utf8.count else { badRange = (a, b, utf8.count); break }
                table.append(String(decoding: UnsafeBufferPointer(rebasing: utf8[a..<b]), as: UTF8.self))
            }
            return true
        }
        if let (a, b, n) = badRange {
            throw offsetSite.error("StringArray offsets \(a)..<\(b) are decreasing or out of range for \(n) bytes of string data")
        }
        if !isASCII {
            let utf16 = Array(stringData.utf16)
            for k in 0..<uniqueCount {
                let a = Int(offsets[k]), b = Int(offsets[k + 1])
                guard a >= 0, a <= b, b <= utf16.count else {
                    throw offsetSite.error("StringArray offsets \(a)..<\(b) are decreasing or out of range for \(utf16.count) UTF-16 units of string data")
                }
                table.append(String(decoding: utf16[a..<b], as: UTF16.self))
            }
        }

        var badIndex: Int32? = nil
        let strings = indices.withUnsafeBufferPointer { src in
            table.withUnsafeBufferPointer { table in
                [String](unsafeUninitializedCapacity: src.count) { dst, n in
                    for i in 0..<src.count {
                        let index = Int(src[i])
                        guard index < uniqueCount else { badIndex = src[i]; n = i; return }
                        dst.initializeElement(at: i, to: table[Swift.max(index, -1) + 1])
                    }
                    n = src.count
                }
            }
        }
        if let badIndex { throw site.error("StringArray index \(badIndex) is past its \(uniqueCount) strings") }
        return strings
    }
}
