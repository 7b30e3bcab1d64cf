/// A MessagePack value: the subset of the format that BinaryCIF uses. Extension types are rejected.
enum MessagePackValue: Sendable {
    case null
    case bool(Bool)
    /// Every integer that fits `Int64`, whatever width it was stored with.
    case int(Int64)
    /// Unsigned integers above `Int64.max` only; smaller ones decode as `.int`.
    case uint(UInt64)
    /// float 32 and float 64 alike.
    case float(Double)
    case string(String)
    /// The payload as a slice of the decoded buffer (no copy): its indices are byte offsets into that buffer.
    case binary(ArraySlice<UInt8>)
    case array([MessagePackValue])
    case map(MessagePackMap)

    /// The value stored under a string key of a map; nil when not a map or the key is absent.
    subscript(key: String) -> MessagePackValue? {
        guard case .map(let map) = self else { return nil }
        return map[key]
    }

    var mapValue: MessagePackMap? { if case .map(let m) = self { return m } else { return nil } }
    var isNull: Bool { if case .null = self { return true } else { return false } }

    /// An integer, also accepting floats with an integral value in range.
    var intValue: Int? {
        switch self {
        case .int(let v): return Int(exactly: v)
        case .uint(let v): return Int(exactly: v)
        case .float(let d):
            guard d.isFinite, d == d.rounded(), abs(d) < 9.0e18 else { return nil }
            return Int(d)
        default: return nil
        }
    }

    /// A number of either kind as a Double.
    var doubleValue: Double? {
        switch self {
        case .int(let v): return Double(v)
        case .uint(let v): return Double(v)
        case .float(let d): return d
        default: return nil
        }
    }

    var boolValue: Bool? { if case .bool(let b) = self { return b } else { return nil } }
    var stringValue: String? { if case .string(let s) = self { return s } else { return nil } }
    var arrayValue: [MessagePackValue]? { if case .array(let a) = self { return a } else { return nil } }
    var binaryValue: ArraySlice<UInt8>? { if case .binary(let b) = self { return b } else { return nil } }
}

/// A MessagePack map: entries in file order, stored as one array alternating key and value (one
/// allocation per map). Keys are usually strings.
struct MessagePackMap: Sendable {
    /// key 0, value 0, key 1, value 1, ...
    var storage: [MessagePackValue] = []

    var count: Int { storage.count / 2 }
    func key(_ i: Int) -> MessagePackValue { storage[2 * i] }
    func value(_ i: Int) -> MessagePackValue { storage[2 * i + 1] }

    /// The value of the first entry whose key is the string `key`.
    subscript(key: String) -> MessagePackValue? {
        var i = 0
        while i + 1 < storage.count {
            if case .string(let k) = storage[i], k == key { return storage[i + 1] }
            i += 2
        }
        return nil
    }

    /// Calls `body` with each entry whose key is a string, in order.
    func forEachStringKey(_ body: (String, MessagePackValue) throws -> Void) rethrows {
        var i = 0
        while i + 1 < storage.count {
            if case .string(let k) = storage[i] { try body(k, storage[i + 1]) }
            i += 2
        }
    }
}

/// Why a MessagePack buffer could not be decoded, and where (0-based byte offset into the buffer).
struct MessagePackError: Error, Sendable, Equatable, CustomStringConvertible {
    var offset: Int
    var message: String
    var description: String { "byte \(offset): \(message)" }
}

/// Decodes MessagePack (https://msgpack.org) into `MessagePackValue`s. Every read is bounds-checked,
/// declared lengths are checked against the bytes left before anything is allocated, and nesting
/// is limited, so malformed input throws rather than trapping, hanging or exhausting memory.
enum MessagePack {
    /// Deepest nesting of arrays and maps accepted (BinaryCIF itself needs about 8).
    static let maxDepth = 64

    /// Decodes the first value in `bytes`; anything after it is ignored.
    static func decode(_ bytes: [UInt8]) throws(MessagePackError) -> MessagePackValue {
        let result: Result<MessagePackValue, MessagePackError> = bytes.withUnsafeBufferPointer { buffer in
            var reader = Reader(bytes: bytes, buffer: buffer)
            do throws(MessagePackError) {
                return .success(try reader.value(depth: 0))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    private struct Reader {
        /// The array, for slicing binaries without a copy.
        let bytes: [UInt8]
        /// The same bytes, for reading without per-access checks (every read is checked by `need`).
        let buffer: UnsafeBufferPointer<UInt8>
        var pos = 0

        init(bytes: [UInt8], buffer: UnsafeBufferPointer<UInt8>) {
            self.bytes = bytes
            self.buffer = buffer
        }

        var remaining: Int { buffer.count - pos }

        func error(_ message: String, at offset: Int? = nil) -> MessagePackError {
            MessagePackError(offset: offset ?? pos, message: message)
        }

        @inline(__always)
        func need(_ n: Int, _ what: @autoclosure () -> String) throws(MessagePackError) {
            guard n >= 0, n <= remaining else {
                throw error("truncated: \(what()) needs \(n) byte(s), \(remaining) left")
            }
        }

        @inline(__always)
        mutating func u8() throws(MessagePackError) -> UInt8 {
            try need(1, "value")
            let b = buffer[pos]
            pos += 1
            return b
        }

        /// A big-endian unsigned integer of `width` bytes (1, 2, 4 or 8).
        @inline(__always)
        mutating func bigEndian(_ width: Int) throws(MessagePackError) -> UInt64 {
            try need(width, "\(width)-byte number")
            var v: UInt64 = 0
            for i in pos..<(pos + width) { v = (v << 8) | UInt64(buffer[i]) }
            pos += width
            return v
        }

        mutating func string(_ length: Int) throws(MessagePackError) -> MessagePackValue {
            try need(length, "string")
            let s = String(decoding: UnsafeBufferPointer(rebasing: buffer[pos..<(pos + length)]), as: UTF8.self)
            pos += length
            return .string(s)
        }

        mutating func binary(_ length: Int) throws(MessagePackError) -> MessagePackValue {
            try need(length, "binary")
            let b = bytes[pos..<(pos + length)]
            pos += length
            return .binary(b)
        }

        mutating func array(_ count: Int, depth: Int, start: Int) throws(MessagePackError) -> MessagePackValue {
            // Each element takes at least one byte: a larger count cannot be honest.
            guard count <= remaining else {
                throw error("array of \(count) elements but only \(remaining) bytes left", at: start)
            }
            var items: [MessagePackValue] = []
            items.reserveCapacity(count)
            for _ in 0..<count { items.append(try value(depth: depth + 1)) }
            return .array(items)
        }

        mutating func map(_ count: Int, depth: Int, start: Int) throws(MessagePackError) -> MessagePackValue {
            guard count <= remaining / 2 else {
                throw error("map of \(count) entries but only \(remaining) bytes left", at: start)
            }
            var storage: [MessagePackValue] = []
            storage.reserveCapacity(2 * count)
            for _ in 0..<(2 * count) { storage.append(try value(depth: depth + 1)) }
            return .map(MessagePackMap(storage: storage))
        }

        mutating func value(depth: Int) throws(MessagePackError) -> MessagePackValue {
            let start = pos
            guard depth <= MessagePack.maxDepth else {
                throw error("nesting deeper than \(MessagePack.maxDepth) levels")
            }
            let tag = try u8()
            switch tag {
            case 0x00...0x7F: return .int(Int64(tag))
            case 0x80...0x8F: return try map(Int(tag & 0x0F), depth: depth, start: start)
            case 0x90...0x9F: return try array(Int(tag & 0x0F), depth: depth, start: start)
            case 0xA0...0xBF: return try string(Int(tag & 0x1F))
            case 0xC0: return .null
            case 0xC2: return .bool(false)
            case 0xC3: return .bool(true)
            case 0xC4: return try binary(Int(try bigEndian(1)))
            case 0xC5: return try binary(Int(try bigEndian(2)))
            case 0xC6: return try binary(Int(try bigEndian(4)))
            case 0xCA: return .float(Double(Float(bitPattern: UInt32(truncatingIfNeeded: try bigEndian(4)))))
            case 0xCB: return .float(Double(bitPattern: try bigEndian(8)))
            case 0xCC: return .int(Int64(try bigEndian(1)))
            case 0xCD: return .int(Int64(try bigEndian(2)))
            case 0xCE: return .int(Int64(try bigEndian(4)))
            case 0xCF:
                let v = try bigEndian(8)
                if let i = Int64(exactly: v) { return .int(i) }
                return .uint(v)
            case 0xD0: return .int(Int64(Int8(truncatingIfNeeded: try bigEndian(1))))
            case 0xD1: return .int(Int64(Int16(truncatingIfNeeded: try bigEndian(2))))
            case 0xD2: return .int(Int64(Int32(truncatingIfNeeded: try bigEndian(4))))
            case 0xD3: return .int(Int64(bitPattern: try bigEndian(8)))
            case 0xD9: return try string(Int(try bigEndian(1)))
            case 0xDA: return try string(Int(try bigEndian(2)))
            case 0xDB: return try string(Int(try bigEndian(4)))
            case 0xDC: return try array(Int(try bigEndian(2)), depth: depth, start: start)
            case 0xDD: return try array(Int(try bigEndian(4)), depth: depth, start: start)
            case 0xDE: return try map(Int(try bigEndian(2)), depth: depth, start: start)
            case 0xDF: return try map(Int(try bigEndian(4)), depth: depth, start: start)
            case 0xE0...0xFF: return .int(Int64(Int8(bitPattern: tag)))
            case 0xC7, 0xC8, 0xC9, 0xD4, 0xD5, 0xD6, 0xD7, 0xD8:
                throw error("MessagePack extension type (tag 0x\(String(tag, radix: 16))) is not supported", at: start)
            default:
                throw error("invalid MessagePack tag 0x\(String(tag, radix: 16))", at: start)
            }
        }
    }
}
