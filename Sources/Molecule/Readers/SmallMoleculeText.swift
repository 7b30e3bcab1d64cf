/// Line and token access over raw bytes for the small-molecule text readers (SDF/MOL, XYZ).
/// Lines end at "\n", "\r\n" or a lone "\r"; ranges never include the line break.
struct MoleculeTextLines {
    let bytes: UnsafeBufferPointer<UInt8>
    private(set) var position = 0
    /// 1-based number of the line `next()` returned last (0 before the first call).
    private(set) var lineNumber = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        // Skip a UTF-8 byte order mark.
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { position = 3 }
    }

    /// True when nothing but white space and line breaks remains.
    var restIsBlank: Bool {
        var i = position
        while i < bytes.count {
            let b = bytes[i]
            if b != 0x20, b != 0x09, b != 0x0A, b != 0x0D { return false }
            i += 1
        }
        return true
    }

    var atEnd: Bool { position >= bytes.count }

    /// The next line's byte range, or nil at the end of the input.
    mutating func next() -> Range<Int>? {
        let n = bytes.count
        guard position < n else { return nil }
        let start = position
        var i = start
        while i < n, bytes[i] != 0x0A, bytes[i] != 0x0D { i += 1 }
        let end = i
        if i < n {
            if bytes[i] == 0x0D, i + 1 < n, bytes[i + 1] == 0x0A { i += 2 } else { i += 1 }
        }
        position = i
        lineNumber += 1
        return start..<end
    }

    /// The next line without consuming it.
    func peek() -> Range<Int>? {
        var copy = self
        return copy.next()
    }

    @inline(__always)
    func slice(_ r: Range<Int>) -> UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(rebasing: bytes[r]) }

    /// The range with leading and trailing spaces and tabs removed.
    func trimmed(_ r: Range<Int>) -> Range<Int> {
        var s = r.lowerBound, e = r.upperBound
        while s < e, bytes[s] == 0x20 || bytes[s] == 0x09 { s += 1 }
        while e > s, bytes[e - 1] == 0x20 || bytes[e - 1] == 0x09 { e -= 1 }
        return s..<e
    }

    func isBlank(_ r: Range<Int>) -> Bool { trimmed(r).isEmpty }

    func string(_ r: Range<Int>) -> String { String(decoding: slice(r), as: UTF8.self) }

    /// Columns `from ..< to` (0-based, half open) of a line, clamped to the line's length.
    func columns(_ line: Range<Int>, _ from: Int, _ to: Int) -> Range<Int> {
        let s = min(line.lowerBound + from, line.upperBound)
        let e = min(line.lowerBound + to, line.upperBound)
        return s..<max(s, e)
    }

    /// Whitespace-separated fields of a range (spaces and tabs).
    func tokens(_ r: Range<Int>, limit: Int = .max) -> [Range<Int>] {
        var out: [Range<Int>] = []
        var i = r.lowerBound
        let e = r.upperBound
        while i < e, out.count < limit {
            while i < e, bytes[i] == 0x20 || bytes[i] == 0x09 { i += 1 }
            guard i < e else { break }
            let s = i
            while i < e, bytes[i] != 0x20, bytes[i] != 0x09 { i += 1 }
            out.append(s..<i)
        }
        return out
    }

    func hasPrefix(_ r: Range<Int>, _ prefix: StaticString) -> Bool {
        let n = prefix.utf8CodeUnitCount
        guard r.count >= n else { return false }
        let p = prefix.utf8Start
        for k in 0..<n where bytes[r.lowerBound + k] != p[k] { return false }
        return true
    }

    func equals(_ r: Range<Int>, _ text: StaticString) -> Bool {
        r.count == text.utf8CodeUnitCount && hasPrefix(r, text)
    }

    func int(_ r: Range<Int>) -> Int? { NumberParsing.int(slice(r)) }
    func double(_ r: Range<Int>) -> Double? { NumberParsing.double(slice(r)) }
}

enum MoleculeTextLimits {
    /// Atoms (and, times four, bonds) accepted in one record or frame.
    static let maxAtomsPerRecord = 1_000_000
    static let maxBondsPerRecord = 4_000_000
}
