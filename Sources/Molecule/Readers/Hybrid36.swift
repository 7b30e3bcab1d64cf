/// Decoding of the extended number fields large PDB files use once decimal columns overflow:
/// hybrid-36 (wwPDB/CCTBX: "A0000" follows 99999) and hexadecimal (VMD/ProDy: "186a0" follows 99999).
enum PDBNumberField {
    /// Decodes a right-justified field of `width` columns. `hexMode` is true once the file has switched
    /// to hexadecimal numbers, which cannot be told from decimal by digits alone ("186b0").
    static func decode(_ b: UnsafeBufferPointer<UInt8>, width: Int, hexMode: inout Bool) -> Int? {
        var i = 0, end = b.count
        while i < end, b[i] == 0x20 { i += 1 }
        while end > i, b[end - 1] == 0x20 { end -= 1 }
        guard i < end else { return nil }
        let first = b[i]
        let isDigit = { (c: UInt8) in c >= 0x30 && c <= 0x39 }
        let isLower = { (c: UInt8) in c >= 0x61 && c <= 0x7A }
        if first >= 0x41 && first <= 0x5A, end - i == width { return hybrid36(b, i, end, width: width, upper: true) }
        var hasHexLetter = false
        for k in i..<end where b[k] >= 0x61 && b[k] <= 0x66 { hasHexLetter = true }
        // Hexadecimal once the file has switched to it ("186a0" follows 99999); a full-width value
        // that starts with a lower-case letter outside hex mode is hybrid-36's lower-case block.
        if hexMode || (hasHexLetter && isDigit(first)) {
            var v = 0
            for k in i..<end {
                let c = b[k]
                let d: Int
                if isDigit(c) { d = Int(c - 0x30) } else if c >= 0x61 && c <= 0x66 { d = Int(c - 0x61 + 10) }
                else if c >= 0x41 && c <= 0x46 { d = Int(c - 0x41 + 10) } else { return nil }
                v = v * 16 + d
            }
            hexMode = true
            return v
        }
        if isLower(first) { return end - i == width ? hybrid36(b, i, end, width: width, upper: false) : nil }
        guard let v = NumberParsing.int(UnsafeBufferPointer(rebasing: b[i..<end])) else { return nil }
        return v
    }

    /// Hybrid-36: upper-case block starts at 10^width, lower-case after the upper-case block.
    private static func hybrid36(_ b: UnsafeBufferPointer<UInt8>, _ i: Int, _ end: Int, width: Int, upper: Bool) -> Int? {
        var v = 0
        for k in i..<end {
            let c = b[k]
            let d: Int
            if c >= 0x30 && c <= 0x39 { d = Int(c - 0x30) }
            else if upper, c >= 0x41 && c <= 0x5A { d = Int(c - 0x41 + 10) }
            else if !upper, c >= 0x61 && c <= 0x7A { d = Int(c - 0x61 + 10) }
            else { return nil }
            v = v * 36 + d
        }
        var p10 = 1, p36 = 1
        for _ in 0..<width { p10 *= 10 }
        for _ in 0..<(width - 1) { p36 *= 36 }
        // "A000…" is 10 * 36^(width-1) in base 36 and stands for 10^width.
        let upperStart = 10 * p36
        if upper { return v - upperStart + p10 }
        return v - upperStart + p10 + 26 * p36
    }

    /// Encodes a number into `width` columns: decimal while it fits, hybrid-36 beyond (the writer's encoder).
    static func encode(_ n: Int, width: Int) -> String { PDBLine.hybrid36(n, width: width) }
}
