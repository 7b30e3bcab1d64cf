/// A zip archive whose files are stored without compression, laid out as the USDZ specification
/// asks: every file's data starts at a 64-byte-aligned offset (the padding goes into the local
/// header's extra field), no data descriptors, no encryption, no zip64 (each file and the whole
/// archive must stay under 4 GiB). Timestamps are fixed (1980-01-01 00:00), so the same files give
/// the same bytes. Only the Swift standard library is used.
struct StoredZipArchive {
    /// The archive so far: local headers and file data. `finish()` appends the central directory.
    private(set) var bytes: [UInt8] = []
    private var entries: [Entry] = []

    private struct Entry {
        var name: [UInt8]
        var crc: UInt32
        var size: UInt32
        var headerOffset: UInt32
    }

    /// Data offsets are multiples of this (the USDZ rule).
    static let alignment = 64
    /// Header ID of the padding record in the extra field (an ID no zip tool assigns a meaning to).
    static let paddingHeaderID: UInt16 = 0x1986
    /// MS-DOS date of 1980-01-01 (day 1, month 1, year 0); the time is 00:00:00.
    static let dosDate: UInt16 = 0x0021
    static let dosTime: UInt16 = 0
    static let versionNeeded: UInt16 = 20

    init(reservingCapacity capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    /// Appends a file. Names should be relative ASCII paths (`scene.usda`, `textures/a.png`).
    mutating func addFile(name: String, contents: [UInt8]) {
        precondition(contents.count < Int(UInt32.max) && bytes.count + contents.count < Int(UInt32.max),
                     "StoredZipArchive: over 4 GiB needs zip64, which USDZ writers here do not emit")
        let nameBytes = Array(name.utf8)
        let header = Self.localHeader(name: nameBytes, at: bytes.count, crc: ZipCRC32.checksum(contents),
                                      size: UInt32(contents.count))
        entries.append(header.entry)
        bytes.append(contentsOf: header.bytes)
        assert(bytes.count % Self.alignment == 0)
        bytes.append(contentsOf: contents)
    }

    /// Bytes to leave free at the front of a buffer for `init(singleFile:name:)`.
    static func headerSpace(forName name: String) -> Int {
        localHeader(name: Array(name.utf8), at: 0, crc: 0, size: 0).bytes.count
    }

    /// An archive holding one file whose contents follow `headerSpace(forName:)` free bytes at the
    /// front of `buffer`; the local header goes into that space, so large contents are not copied.
    init(singleFile buffer: [UInt8], name: String) {
        let nameBytes = Array(name.utf8)
        let space = Self.headerSpace(forName: name)
        precondition(buffer.count >= space && buffer.count < Int(UInt32.max),
                     "StoredZipArchive: over 4 GiB needs zip64, which USDZ writers here do not emit")
        let crc = buffer.withUnsafeBufferPointer { ZipCRC32.update(0, UnsafeBufferPointer(rebasing: $0[space...])) }
        let header = Self.localHeader(name: nameBytes, at: 0, crc: crc, size: UInt32(buffer.count - space))
        bytes = buffer
        bytes.replaceSubrange(0..<space, with: header.bytes)
        entries = [header.entry]
    }

    /// The local header of a file whose header starts at `offset`, padded (through the extra
    /// field) so that the data begins on an alignment boundary. An extra-field record needs at
    /// least 4 bytes (ID and length), so a gap of 1...3 bytes grows by one alignment step.
    private static func localHeader(name: [UInt8], at offset: Int, crc: UInt32, size: UInt32) -> (bytes: [UInt8], entry: Entry) {
        let unpadded = offset + 30 + name.count
        var padding = (alignment - unpadded % alignment) % alignment
        if padding > 0 && padding < 4 { padding += alignment }
        var h = StoredZipArchive()
        h.appendUInt32(0x0403_4b50)
        h.appendUInt16(versionNeeded)
        h.appendUInt16(0)                 // flags: none (ASCII names, sizes known up front)
        h.appendUInt16(0)                 // method: stored
        h.appendUInt16(dosTime)
        h.appendUInt16(dosDate)
        h.appendUInt32(crc)
        h.appendUInt32(size)              // compressed size
        h.appendUInt32(size)              // uncompressed size
        h.appendUInt16(UInt16(name.count))
        h.appendUInt16(UInt16(padding))
        h.bytes.append(contentsOf: name)
        if padding > 0 {
            h.appendUInt16(paddingHeaderID)
            h.appendUInt16(UInt16(padding - 4))
            h.bytes.append(contentsOf: repeatElement(0, count: padding - 4))
        }
        return (h.bytes, Entry(name: name, crc: crc, size: size, headerOffset: UInt32(offset)))
    }

    /// Appends the central directory and the end record, and returns the archive.
    mutating func finish() -> [UInt8] {
        let directoryOffset = bytes.count
        for entry in entries {
            appendUInt32(0x0201_4b50)
            appendUInt16(Self.versionNeeded)    // version made by: 2.0, MS-DOS attributes
            appendUInt16(Self.versionNeeded)
            appendUInt16(0)                     // flags
            appendUInt16(0)                     // method: stored
            appendUInt16(Self.dosTime)
            appendUInt16(Self.dosDate)
            appendUInt32(entry.crc)
            appendUInt32(entry.size)
            appendUInt32(entry.size)
            appendUInt16(UInt16(entry.name.count))
            appendUInt16(0)                     // extra field length
            appendUInt16(0)                     // comment length
            appendUInt16(0)                     // disk number
            appendUInt16(0)                     // internal attributes
            appendUInt32(0)                     // external attributes
            appendUInt32(entry.headerOffset)
            bytes.append(contentsOf: entry.name)
        }
        let directorySize = bytes.count - directoryOffset
        precondition(bytes.count < Int(UInt32.max) && entries.count < Int(UInt16.max),
                     "StoredZipArchive: archive too large for a zip without zip64")
        appendUInt32(0x0605_4b50)
        appendUInt16(0)                         // this disk
        appendUInt16(0)                         // disk with the central directory
        appendUInt16(UInt16(entries.count))
        appendUInt16(UInt16(entries.count))
        appendUInt32(UInt32(directorySize))
        appendUInt32(UInt32(directoryOffset))
        appendUInt16(0)                         // comment length
        return bytes
    }

    private mutating func appendUInt16(_ v: UInt16) {
        bytes.append(UInt8(truncatingIfNeeded: v))
        bytes.append(UInt8(truncatingIfNeeded: v >> 8))
    }

    private mutating func appendUInt32(_ v: UInt32) {
        bytes.append(UInt8(truncatingIfNeeded: v))
        bytes.append(UInt8(truncatingIfNeeded: v >> 8))
        bytes.append(UInt8(truncatingIfNeeded: v >> 16))
        bytes.append(UInt8(truncatingIfNeeded: v >> 24))
    }
}

/// CRC-32 as zip uses it (polynomial 0xEDB88320, reflected, initial and final XOR 0xFFFFFFFF),
/// table-driven with eight tables (slicing-by-8) so that tens of megabytes take milliseconds.
enum ZipCRC32 {
    /// `tables[256 * k + b]`: the CRC of byte `b` followed by `k` zero bytes, k in 0..<8.
    static let tables: [UInt32] = {
        var t = [UInt32](repeating: 0, count: 8 * 256)
        for n in 0..<256 {
            var c = UInt32(n)
            for _ in 0..<8 { c = (c & 1) != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
            t[n] = c
        }
        for k in 1..<8 {
            for n in 0..<256 {
                let previous = t[256 * (k - 1) + n]
                t[256 * k + n] = (previous >> 8) ^ t[Int(previous & 0xFF)]
            }
        }
        return t
    }()

    static func checksum(_ data: [UInt8]) -> UInt32 {
        data.withUnsafeBufferPointer { update(0, $0) }
    }

    /// Continues `crc` (0 to start) over `data`.
    static func update(_ crc: UInt32, _ data: UnsafeBufferPointer<UInt8>) -> UInt32 {
        tables.withUnsafeBufferPointer { table -> UInt32 in
            let t = table.baseAddress!
            var c = ~crc
            guard var p = data.baseAddress else { return crc }
            var n = data.count
            while n >= 8 {
                let word = UInt64(littleEndian: UnsafeRawPointer(p).loadUnaligned(as: UInt64.self))
                let lo = c ^ UInt32(truncatingIfNeeded: word)
                let hi = UInt32(truncatingIfNeeded: word >> 32)
                c = t[1792 + Int(lo & 0xFF)] ^ t[1536 + Int((lo >> 8) & 0xFF)]
                    ^ t[1280 + Int((lo >> 16) & 0xFF)] ^ t[1024 + Int(lo >> 24)]
                    ^ t[768 + Int(hi & 0xFF)] ^ t[512 + Int((hi >> 8) & 0xFF)]
                    ^ t[256 + Int((hi >> 16) & 0xFF)] ^ t[Int(hi >> 24)]
                p += 8
                n -= 8
            }
            while n > 0 {
                c = t[Int((c ^ UInt32(p[0])) & 0xFF)] ^ (c >> 8)
                p += 1
                n -= 1
            }
            return ~c
        }
    }
}
