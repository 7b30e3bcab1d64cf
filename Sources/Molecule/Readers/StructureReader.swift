import CompressNIO
import NIOCore
import Foundation

/// Reads any supported structure file. The format is recognised from the content (gzip from its
/// magic bytes), never from the file name, which serves only to name the file in errors.
public enum StructureReader {
    /// Largest input accepted, after decompression: token offsets are 32-bit.
    public static let maximumSize = 2_000_000_000

    /// Reads a file; errors name it by `path` as given.
    public static func read(contentsOf path: String, limits: ReadLimits = .standard) throws -> Structure {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw StructureReadError(file: path, message: "cannot be read: \(error.localizedDescription)")
        }
        return try read(bytes: [UInt8](data), fileName: path, limits: limits)
    }

    /// Reads a file's bytes; `limits` bound the models and atoms built (a file past them is refused).
    public static func read(bytes input: [UInt8], fileName: String, limits: ReadLimits = .standard) throws -> Structure {
        var bytes = input
        if isGzip(bytes) { bytes = try decompressGzip(bytes, fileName: fileName) }
        var structure = try readPlain(bytes, fileName: fileName, limits: limits)
        structure.metadata.limitText()
        return structure
    }

    /// Reads bytes that are not compressed (`read` inflates them first).
    static func readPlain(_ bytes: [UInt8], fileName: String, limits: ReadLimits = .standard) throws -> Structure {
        guard !bytes.isEmpty else { throw StructureReadError(file: fileName, message: "the file is empty") }
        guard bytes.count < maximumSize else { throw StructureReadError(file: fileName, message: "the file is larger than 2 GB") }
        guard let format = detectFormat(bytes) else {
            throw StructureReadError(file: fileName, byteOffset: 0, message: "not a recognised structure format (expected PDB, mmCIF, BinaryCIF, SDF/MOL, MOL2, CIF (small molecule) or XYZ)")
        }
        if format != .binaryCIF { try checkText(bytes, fileName: fileName) }
        switch format {
        case .binaryCIF:
            // Run-length columns may expand a lot, but not without bound: a small file gets a small budget.
            let budget = max(20_000_000, 100 * bytes.count)
            let blocks = try BinaryCIFDecoder.decode(bytes, fileName: fileName, maxDecodedValues: budget,
                                                     only: MMCIFReader.categoriesRead.union(ChemicalComponentReader.categoriesRead))
            return try readCIF(blocks, fileName: fileName, format: .binaryCIF, limits: limits)
        case .mmcif, .smallMoleculeCIF:
            return try readCIF(try CIFParser.parse(bytes, fileName: fileName), fileName: fileName, format: .mmcif, limits: limits)
        case .pdb:
            return try bytes.withUnsafeBufferPointer { try PDBReader.read($0, fileName: fileName, limits: limits) }
        case .sdf, .mol2000:
            return try bytes.withUnsafeBufferPointer { try SDFReader.read($0, fileName: fileName, limits: limits) }
        case .mol2:
            return try bytes.withUnsafeBufferPointer { try MOL2Reader.read($0, fileName: fileName, limits: limits) }
        case .xyz:
            return try bytes.withUnsafeBufferPointer { try XYZReader.read($0, fileName: fileName, limits: limits) }
        }
    }

    /// A model file's first block with Cartesian `_atom_site` coordinates, else a crystal
    /// structure's first block with fractional ones (`_atom_site_fract_x`), else the first block
    /// with any `_atom_site`, or else the file's chemical components.
    static func readCIF(_ blocks: [CIFBlock], fileName: String, format: StructureFormat, limits: ReadLimits = .standard) throws -> Structure {
        guard !blocks.isEmpty else { throw StructureReadError(file: fileName, message: "the CIF file has no data_ block") }
        if let block = blocks.first(where: { $0["atom_site"]?["cartn_x"] != nil }) {
            return try MMCIFReader.read(block, fileName: fileName, format: format, limits: limits)
        }
        if format != .binaryCIF, let block = blocks.first(where: SmallMoleculeCIFReader.isCrystalStructure) {
            return try SmallMoleculeCIFReader.read(block, fileName: fileName, limits: limits)
        }
        if let block = blocks.first(where: { $0["atom_site"] != nil }) {
            return try MMCIFReader.read(block, fileName: fileName, format: format, limits: limits)
        }
        return try ChemicalComponentReader.read(blocks, fileName: fileName, format: format, limits: limits)
    }

    public static func isGzip(_ b: [UInt8]) -> Bool { b.count >= 2 && b[0] == 0x1F && b[1] == 0x8B }

    /// The inflated size a gzip stream declares in its trailer (ISIZE, modulo 2³²), or nil when the
    /// bytes are too short to be a gzip stream.
    public static func gzipDeclaredSize(_ bytes: [UInt8]) -> Int? {
        let n = bytes.count
        guard n >= 18 else { return nil }
        return Int(bytes[n - 4]) | Int(bytes[n - 3]) << 8 | Int(bytes[n - 2]) << 16 | Int(bytes[n - 1]) << 24
    }

    /// - Parameter maximumSize: largest inflated size accepted (a small gzip can inflate to gigabytes).
    public static func decompressGzip(_ bytes: [UInt8], fileName: String = "input", maximumSize: Int = maximumSize) throws -> [UInt8] {
        var input = ByteBuffer(bytes: bytes)
        do {
            var output: ByteBuffer
            do {
                output = try input.decompress(with: .gzip(), maxSize: maximumSize, allocator: ByteBufferAllocator())
            } catch let error as CompressNIOError where error == .bufferOverflow {
                throw StructureReadError(file: fileName, message: "inflates to more than \(maximumSize) bytes, more than accepted", isTooLarge: true)
            }
            let result = output.readBytes(length: output.readableBytes) ?? []
            // Inflated once, with one cap: gzip inside gzip would multiply the cap, so it is refused.
            if isGzip(result) {
                throw StructureReadError(file: fileName, message: "nested compression (gzip inside gzip); send the file compressed once",
                                         isTooLarge: true)
            }
            // The trailer's ISIZE (length mod 2^32) catches a stream cut short, which inflating alone does not report.
            guard let isize = gzipDeclaredSize(bytes), isize == Int(UInt32(truncatingIfNeeded: result.count)) else {
                throw StructureReadError(file: fileName, byteOffset: bytes.count, message: "gzip data is truncated or damaged (its length trailer does not match)")
            }
            return result
        } catch let error as StructureReadError {
            throw error
        } catch {
            throw StructureReadError(file: fileName, message: "gzip data is damaged or truncated (\(error))")
        }
    }

    /// Recognises the format from the first bytes: BinaryCIF is a MessagePack map; CIF starts with
    /// `data_` and MOL2 with `@<TRIPOS>` (after comments); SDF/MOL has `V2000`/`V3000` on its counts line; XYZ starts with an
    /// atom count; PDB has record names in columns 1-6.
    public static func detectFormat(_ b: [UInt8]) -> StructureFormat? {
        guard let first = b.first else { return nil }
        if first & 0xF0 == 0x80 || first == 0xDE || first == 0xDF { return .binaryCIF }
        let head = String(decoding: b.prefix(4096), as: UTF8.self)
        let lines = head.split(separator: "\n", omittingEmptySubsequences: false).map { $0.hasSuffix("\r") ? $0.dropLast() : $0 }
        for line in lines {
            let t = line.trimmingSpaces
            if t.isEmpty || t.hasPrefix("#") { continue }
            if t.lowercased().hasPrefix("data_") { return .mmcif }
            if t.hasPrefix("@<TRIPOS>") { return .mol2 }
            break
        }
        if lines.count > 3, lines[3].contains("V2000") || lines[3].contains("V3000") {
            return b.prefix(1 << 20).contains(0x24) && head.contains("$$$$") || countRecords(b) > 1 ? .sdf : .mol2000
        }
        if let firstLine = lines.first, Int(firstLine.trimmingSpaces) != nil, lines.count > 2 { return .xyz }
        let records: Set<String> = ["HEADER", "ATOM", "HETATM", "REMARK", "TITLE", "COMPND", "SOURCE", "CRYST1", "MODEL",
                                    "SEQRES", "HELIX", "SHEET", "EXPDTA", "AUTHOR", "KEYWDS", "JRNL", "ORIGX1", "SCALE1", "OBSLTE", "SPLIT", "CAVEAT"]
        for line in lines.prefix(200) {
            let name = String(line.prefix(6)).trimmingSpaces
            if records.contains(name) { return .pdb }
        }
        return nil
    }

    static func countRecords(_ b: [UInt8]) -> Int {
        var count = 0, i = 0
        while i + 4 <= b.count { if b[i] == 0x24, b[i + 1] == 0x24, b[i + 2] == 0x24, b[i + 3] == 0x24 { count += 1; i += 4 } else { i += 1 } }
        return count
    }

    /// Text formats must be UTF-8 without control bytes; says where the first bad byte is.
    static func checkText(_ bytes: [UInt8], fileName: String) throws {
        try bytes.withUnsafeBufferPointer { b in
            guard let base = b.baseAddress else { return }
            let n = b.count
            var i = 0
            func fail(_ message: String) -> StructureReadError {
                var line = 1
                for k in 0..<i where b[k] == 0x0A { line += 1 }
                return StructureReadError(file: fileName, line: line, message: message)
            }
            while i < n {
                // Eight bytes at a time while they are printable ASCII (no high bit, none below 0x20).
                if i + 8 <= n {
                    let w = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
                    let high: UInt64 = 0x8080_8080_8080_8080
                    if (w | (w &+ 0x6060_6060_6060_6060)) & high == high, w & high == 0 { i += 8; continue }
                }
                let c = b[i]
                if c < 0x80 {
                    if c < 0x20 && c != 0x0A && c != 0x09 && c != 0x0D && c != 0x0C {
                        throw fail("contains the control byte 0x\(String(c, radix: 16)) at offset \(i): binary data in a text format")
                    }
                    i += 1
                    continue
                }
                let len = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xC2 && c <= 0xDF ? 2 : 0
                var ok = len > 0 && i + len <= n
                if ok { for k in 1..<len where b[i + k] & 0xC0 != 0x80 { ok = false } }
                guard ok else { throw fail("byte 0x\(String(c, radix: 16)) at offset \(i) is not valid UTF-8") }
                i += len
            }
        }
    }
}
