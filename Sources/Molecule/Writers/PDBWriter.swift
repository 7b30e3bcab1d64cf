import TextOutput

/// Writes a structure as a fixed-column PDB file: HEADER, TITLE, EXPDTA, REMARK 2 (resolution),
/// MODEL/ENDMDL when there are several models, ATOM/HETATM with TER after each chain's polymer part,
/// CONECT for the bonds small-molecule files state (`Model.bonds`), and END.
///
/// Large structures follow the wwPDB/CCTBX conventions: serials above 99999 and residue numbers above
/// 9999 in hybrid-36, two-character chain ids in columns 21-22. What the format cannot hold is cut:
/// atom names after 4 characters, residue names after 3, chain ids after 2. Coordinates keep 3
/// decimals while they fit the 8 columns (fewer beyond), occupancy and B 2 decimals.
enum PDBWriter {
    static func writeBytes(_ s: Structure) -> [UInt8] {
        let atomTotal = s.models.reduce(0) { $0 + $1.atoms.count }
        var out = TextBuffer(capacity: atomTotal * 81 + 4096)
        writeHeader(s, into: &out)

        let several = s.models.count > 1
        for model in s.models {
            if several {
                var line = PDBLine("MODEL ")
                line.putRight(String(model.number), col: 11, width: 4)
                line.emit(into: &out)
            }
            writeAtoms(of: model, entities: s.entities, into: &out)
            if several { PDBLine("ENDMDL").emit(into: &out) }
        }
        writeConect(s, into: &out)
        PDBLine("END").emit(into: &out)
        return out.finish()
    }

    // MARK: - Header

    static func writeHeader(_ s: Structure, into out: inout TextBuffer) {
        let md = s.metadata
        if !md.classification.isEmpty || !md.depositionDate.isEmpty || !md.id.isEmpty {
            var line = PDBLine("HEADER")
            line.putLeft(md.classification, col: 11, width: 40)
            if let date = pdbDate(md.depositionDate) { line.putLeft(date, col: 51, width: 9) }
            line.putLeft(md.id, col: 63, width: 4)
            line.emit(into: &out)
        }
        writeContinued("TITLE ", md.title, into: &out)
        writeContinued("EXPDTA", md.experimentalMethods.joined(separator: "; "), into: &out)
        if let r = md.resolution, r.isFinite, r >= 0, r < 10000 {
            var blank = PDBLine("REMARK")
            blank.putRight("2", col: 10, width: 1)
            blank.emit(into: &out)
            var line = blank
            var text = TextBuffer()
            text.printf(r, decimals: 2)
            line.putLeft("RESOLUTION.", col: 12, width: 11)
            line.putRight(String(decoding: text.bytes, as: UTF8.self), col: 24, width: 7)
            line.putLeft("ANGSTROMS.", col: 32, width: 10)
            line.emit(into: &out)
        }
    }

    /// A record whose text runs on over continuation lines: "TITLE     text", "TITLE    2 more text".
    static func writeContinued(_ record: StaticString, _ text: String, into out: inout TextBuffer) {
        let words = ASCIIText.fold(text).split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\r" || $0 == "\t" })
        guard !words.isEmpty else { return }
        // Greedy packing: 70 columns on the first line, 69 after the continuation number.
        var lines: [String] = []
        var current = ""
        for w in words {
            var word = Substring(w)
            let width = lines.isEmpty ? 70 : 69
            if !current.isEmpty, current.utf8.count + 1 + word.utf8.count <= width {
                current += " " + word
                continue
            }
            if !current.isEmpty { lines.append(current); current = "" }
            while word.utf8.count > (lines.isEmpty ? 70 : 69) {
                let cut = lines.isEmpty ? 70 : 69
                lines.append(String(word.prefix(cut)))
                word = word.dropFirst(cut)
            }
            current = String(word)
        }
        if !current.isEmpty { lines.append(current) }
        for (k, text) in lines.enumerated() {
            var line = PDBLine(record)
            if k == 0 {
                line.putLeft(text, col: 11, width: 70)
            } else {
                line.putRight(String(k + 1), col: 9, width: 2)
                line.putLeft(text, col: 12, width: 69)
            }
            line.emit(into: &out)
        }
    }

    /// "2019-03-14" → "14-MAR-19".
    static func pdbDate(_ iso: String) -> String? {
        let p = iso.split(separator: "-")
        guard p.count == 3, p[0].count == 4, let m = Int(p[1]), (1...12).contains(m), let d = Int(p[2]), (1...31).contains(d)
        else { return nil }
        let months = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"]
        let day = d < 10 ? "0\(d)" : "\(d)"
        return "\(day)-\(months[m - 1])-\(p[0].suffix(2))"
    }

    // MARK: - Atoms

    static func writeAtoms(of model: Model, entities: [Entity], into out: inout TextBuffer) {
        let atoms = model.atoms
        let n = atoms.count
        guard n > 0 else { return }
        var line = PDBLine("")
        // A model without residues: its atoms with blank residue fields.
        if model.chains.isEmpty || model.residues.isEmpty {
            for a in 0..<n { writeAtom(atoms, a, line: &line, into: &out) }
            return
        }
        for chain in model.chains {
            let rs = clamp(chain.residueStart, chain.residueEnd, model.residues.count)
            guard !rs.isEmpty else { continue }
            let polymerChain = chain.entityIndex.map { $0 >= 0 && $0 < entities.count && entities[$0].kind == .polymer } ?? false
            let lastPolymer = rs.last(where: { isPolymer(model.residues[$0], atoms, polymerChain: polymerChain) })
            let chainBytes = Array(chain.id.utf8.prefix(2))
            for r in rs {
                let res = model.residues[r]
                let range = clamp(res.atomStart, res.atomEnd, n)
                // Columns 18-27 stay as they are for all of the residue's atoms.
                line.clear()
                line.putResidue(res, chain: chainBytes)
                for a in range { writeAtom(atoms, a, line: &line, into: &out) }
                if r == lastPolymer, let lastAtom = range.last {
                    var ter = PDBLine("TER   ")
                    // The serial after the chain's last atom; left blank when it cannot be written.
                    ter.putHybrid36(Int(atoms.serials[lastAtom]) + 1, col: 7, width: 5, blankWhenTooLarge: true)
                    ter.putResidue(res, chain: chainBytes)
                    ter.emit(into: &out)
                }
            }
        }
    }

    /// Upper-case element symbols right-justified in two columns (77-78), by atomic number.
    static let elementColumns: [(UInt8, UInt8)] = ElementData.symbols.map { sym in
        let u = Array(sym.uppercased().utf8)
        return u.count >= 2 ? (u[0], u[1]) : (0x20, u.first ?? 0x58)
    }

    /// Writes every column outside 18-27 (the residue's, left as they are in `line`).
    static func writeAtom(_ atoms: AtomTable, _ a: Int, line: inout PDBLine, into out: inout TextBuffer) {
        let het = atoms.isHetero[a]
        line.putASCII(het ? "HETATM" : "ATOM  ", col: 1)
        line.putHybrid36(Int(atoms.serials[a]), col: 7, width: 5, blankWhenTooLarge: false)
        line.put(0x20, col: 12)
        let z = Int(atoms.elements[a].atomicNumber)
        let symbol = z < elementColumns.count ? elementColumns[z] : (0x20, 0x58)
        line.putAtomName(atoms.names[a], oneLetterElement: symbol.0 == 0x20)
        let alt = atoms.altLocs[a]
        line.put(alt >= 0x21 && alt < 0x7F ? alt : 0x20, col: 17)
        let p = atoms.positions[a]
        line.fill(col: 28, width: 3)
        line.putFixed(Double(p.x), col: 31, width: 8, decimals: 3)
        line.putFixed(Double(p.y), col: 39, width: 8, decimals: 3)
        line.putFixed(Double(p.z), col: 47, width: 8, decimals: 3)
        line.putFixed(Double(atoms.occupancies[a]), col: 55, width: 6, decimals: 2)
        line.putFixed(Double(atoms.bFactors[a]), col: 61, width: 6, decimals: 2)
        line.fill(col: 67, width: 10)
        line.put(symbol.0, col: 77)
        line.put(symbol.1, col: 78)
        let q = Int(atoms.formalCharges[a])
        if q != 0 {
            line.put(UInt8(min(q.magnitude, 9)) + 0x30, col: 79)
            line.put(q > 0 ? 0x2B : 0x2D, col: 80)
        } else {
            line.fill(col: 79, width: 2)
        }
        line.emit(into: &out)
    }

    /// `start ..< end` limited to `0 ..< count` (empty when reversed), so a malformed model cannot trap.
    static func clamp(_ start: Int32, _ end: Int32, _ count: Int) -> Range<Int> {
        let lo = min(max(Int(start), 0), count)
        let hi = min(max(Int(end), lo), count)
        return lo..<hi
    }

    /// A polymer residue: one in the entity sequence, one with ATOM records, or an amino acid or
    /// nucleotide in a polymer chain (modified residues such as MSE are HETATMs).
    static func isPolymer(_ res: Residue, _ atoms: AtomTable, polymerChain: Bool) -> Bool {
        if res.sequenceIndex != nil { return true }
        for a in clamp(res.atomStart, res.atomEnd, atoms.count) where !atoms.isHetero[a] { return true }
        if polymerChain { let k = res.kind; return k == .aminoAcid || k == .nucleotide }
        return false
    }

    // MARK: - CONECT

    /// CONECT records for `Model.bonds` when every model states the same bonds (by model 1's serials).
    static func writeConect(_ s: Structure, into out: inout TextBuffer) {
        guard let first = s.models.first, !first.bonds.isEmpty,
              s.models.allSatisfy({ $0.bonds == first.bonds }) else { return }
        let n = first.atoms.count
        var partners = [[Int]](repeating: [], count: n)
        for b in first.bonds {
            let i = Int(b.a), j = Int(b.b)
            guard i >= 0, i < n, j >= 0, j < n, i != j else { continue }
            partners[i].append(j)
            partners[j].append(i)
        }
        for i in 0..<n where !partners[i].isEmpty {
            var k = 0
            let list = partners[i]
            while k < list.count {
                var line = PDBLine("CONECT")
                line.putHybrid36(Int(first.atoms.serials[i]), col: 7, width: 5, blankWhenTooLarge: false)
                for (slot, j) in list[k..<min(k + 4, list.count)].enumerated() {
                    line.putHybrid36(Int(first.atoms.serials[j]), col: 12 + 5 * slot, width: 5, blankWhenTooLarge: false)
                }
                line.emit(into: &out)
                k += 4
            }
        }
    }
}

/// One 80-column record being assembled; columns are 1-based as in the PDB format description.
/// Bytes outside printable ASCII never reach the line (they are written as "?").
struct PDBLine {
    var b = [UInt8](repeating: 0x20, count: 80)

    init(_ record: StaticString) { putASCII(record, col: 1) }

    mutating func clear() { fill(col: 1, width: 80) }

    @inline(__always)
    mutating func fill(col: Int, width: Int) {
        var c = max(col, 1)
        while c < col + width, c <= 80 { b[c - 1] = 0x20; c += 1 }
    }

    /// One byte at `col`; bytes outside printable ASCII (control characters, UTF-8) become "?".
    @inline(__always)
    mutating func put(_ byte: UInt8, col: Int) {
        if col >= 1 && col <= 80 { b[col - 1] = (byte >= 0x20 && byte < 0x7F) ? byte : 0x3F }
    }

    mutating func putASCII(_ s: StaticString, col: Int) {
        s.withUTF8Buffer { u in for (k, c) in u.enumerated() { put(c, col: col + k) } }
    }

    /// Text from `col`, cut to `width`.
    mutating func putLeft<C: Collection>(_ s: C, col: Int, width: Int) where C.Element == UInt8 {
        var i = 0
        for c in s {
            guard i < width else { break }
            put(c, col: col + i)
            i += 1
        }
    }

    mutating func putLeft(_ s: String, col: Int, width: Int) { putLeft(s.utf8, col: col, width: width) }

    /// Text right-justified in `width` columns (cut on the left when longer).
    mutating func putRight(_ s: String, col: Int, width: Int) {
        let u = s.utf8.suffix(width)
        putLeft(u, col: col + width - u.count, width: width)
    }

    /// Columns 13-16: names shorter than 4 characters of one-letter elements start in column 14.
    mutating func putAtomName(_ name: String, oneLetterElement: Bool) {
        fill(col: 13, width: 4)
        let n = name.utf8.count
        putLeft(name.utf8, col: (n < 4 && oneLetterElement) ? 14 : 13, width: (n < 4 && oneLetterElement) ? 3 : 4)
    }

    /// Residue name (18-20), chain id (22, or 21-22 for two characters), number (23-26), insertion code (27).
    mutating func putResidue(_ res: Residue, chain: [UInt8]) {
        // Longer names (4- and 5-character CCD ids) are cut to 3, as gemmi does: column 21 is the chain's.
        let short = res.name.utf8.prefix(3)
        putLeft(short, col: 21 - short.count, width: 3)
        putLeft(chain, col: 23 - chain.count, width: 2)
        putHybrid36(Int(res.number), col: 23, width: 4, blankWhenTooLarge: false)
        if res.insertionCode >= 0x21 && res.insertionCode < 0x7F { put(res.insertionCode, col: 27) }
    }

    static func power10(_ e: Int) -> Int { var p = 1; for _ in 0..<e { p *= 10 }; return p }

    /// A decimal integer right-justified in `width` columns; it must fit.
    mutating func putDecimal(_ n: Int, col: Int, width: Int) {
        fill(col: col, width: width)
        var m = n.magnitude
        var c = col + width - 1
        repeat { put(UInt8(truncatingIfNeeded: m % 10) + 0x30, col: c); m /= 10; c -= 1 } while m > 0 && c >= col
        if n < 0 && c >= col { put(0x2D, col: c) }
    }

    /// Decimal while the number fits `width` columns, then hybrid-36 (upper-case block, then
    /// lower-case block), then "*****" (or blank). Negative numbers that do not fit are clamped.
    mutating func putHybrid36(_ n: Int, col: Int, width: Int, blankWhenTooLarge: Bool) {
        let p10 = PDBLine.power10(width)
        if n < 0 { putDecimal(max(n, -(PDBLine.power10(width - 1) - 1)), col: col, width: width); return }
        if n < p10 { putDecimal(n, col: col, width: width); return }
        let p36 = PDBLine.power36(width - 1)
        var v = n - p10 + 10 * p36
        var letterBase: UInt8 = 0x41 - 10  // "A" for digit 10
        if v >= 36 * p36 {
            v = n - p10 - 26 * p36 + 10 * p36
            letterBase = 0x61 - 10  // "a"
            if v >= 36 * p36 {
                fill(col: col, width: width)
                if !blankWhenTooLarge { for k in 0..<width { put(0x2A, col: col + k) } }
                return
            }
        }
        for k in stride(from: width - 1, through: 0, by: -1) {
            let d = UInt8(v % 36)
            put(d < 10 ? 0x30 + d : letterBase + d, col: col + k)
            v /= 36
        }
    }

    static func power36(_ e: Int) -> Int { var p = 1; for _ in 0..<e { p *= 36 }; return p }

    /// String form of `putHybrid36` (for tests and other records).
    static func hybrid36(_ n: Int, width: Int) -> String {
        var line = PDBLine("")
        line.putHybrid36(n, col: 1, width: width, blankWhenTooLarge: false)
        return String(decoding: line.b[0..<width].drop(while: { $0 == 0x20 }), as: UTF8.self)
    }

    /// A number right-justified in `width` columns with `decimals` digits, fewer when it would not
    /// fit, and the largest magnitude the field can show when even none fit.
    mutating func putFixed(_ v: Double, col: Int, width: Int, decimals: Int) {
        fill(col: col, width: width)
        var d = min(max(decimals, 0), 9)
        while true {
            let scale = TextBuffer.pow10(d)
            var scaled = (Swift.abs(v) * scale).rounded(.toNearestOrEven)
            if !scaled.isFinite { scaled = 0 }
            if scaled < 9e18 {
                let n = UInt64(scaled)
                let negative = v < 0 && n != 0
                let p = UInt64(scale)
                var intDigits = 1, ip = n / p
                while ip >= 10 { ip /= 10; intDigits += 1 }
                let length = intDigits + (d > 0 ? d + 1 : 0) + (negative ? 1 : 0)
                if length <= width {
                    var c = col + width - 1
                    var m = n
                    for _ in 0..<d { put(UInt8(truncatingIfNeeded: m % 10) + 0x30, col: c); m /= 10; c -= 1 }
                    if d > 0 { put(0x2E, col: c); c -= 1 }
                    repeat { put(UInt8(truncatingIfNeeded: m % 10) + 0x30, col: c); m /= 10; c -= 1 } while m > 0
                    if negative { put(0x2D, col: c) }
                    return
                }
            }
            if d == 0 { break }
            d -= 1
        }
        putDecimal(v < 0 ? -(PDBLine.power10(width - 1) - 1) : PDBLine.power10(width) - 1, col: col, width: width)
    }

    /// The record padded to 80 columns, as wwPDB files are.
    func emit(into out: inout TextBuffer) {
        out.text(b)
        out.byte(0x0A)
    }
}
