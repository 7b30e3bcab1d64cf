/// Writes a structure as a fixed-column PDB file: HEADER, TITLE, EXPDTA, REMARK 2 (resolution),
/// MODEL/ENDMDL when there are several models, ATOM/HETATM with TER after each chain's polymer part,
/// CONECT for the bonds small-molecule files state (`Model.bonds`), and END.
///
/// Large structures follow the wwPDB/CCTBX conventions: serials above 99999 and residue numbers above
/// 9999 in hybrid-36, two-character chain ids in columns 21-22. What the format cannot hold is cut:
/// atom names after 4 characters, residue names after 3 (4 when the chain id has one character),
/// chain ids after 2. Coordinates keep 3 decimals while they fit the 8 columns.
enum PDBWriter {
    static func write(_ s: Structure) -> String {
        String(decoding: writeBytes(s), as: UTF8.self)
    }

    static func writeBytes(_ s: Structure) -> [UInt8] {
        let atomTotal = s.models.reduce(0) { $0 + $1.atoms.count }
        var out = TextWriterBuffer(reserve: atomTotal * 81 + 4096)
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
        return out.bytes
    }

    // MARK: - Header

    static func writeHeader(_ s: Structure, into out: inout TextWriterBuffer) {
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
            var text = TextWriterBuffer()
            text.appendFixed(r, decimals: 2)
            line.putLeft("RESOLUTION.", col: 12, width: 11)
            line.putRight(String(decoding: text.bytes, as: UTF8.self), col: 24, width: 7)
            line.putLeft("ANGSTROMS.", col: 32, width: 10)
            line.emit(into: &out)
        }
    }

    /// A record whose text runs on over continuation lines: "TITLE     text", "TITLE    2 more text".
    static func writeContinued(_ record: String, _ text: String, into out: inout TextWriterBuffer) {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\r" || $0 == "\t" })
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

    static func writeAtoms(of model: Model, entities: [Entity], into out: inout TextWriterBuffer) {
        let atoms = model.atoms
        let n = atoms.count
        guard n > 0 else { return }
        var line = PDBLine("ATOM  ")
        // A model without residues: its atoms with blank residue fields.
        if model.chains.isEmpty || model.residues.isEmpty {
            for a in 0..<n { writeAtom(atoms, a, residue: nil, chainID: "", line: &line, into: &out) }
            return
        }
        for chain in model.chains {
            let rs = clamp(chain.residueStart, chain.residueEnd, model.residues.count)
            guard !rs.isEmpty else { continue }
            let polymerChain = chain.entityIndex.map { $0 >= 0 && $0 < entities.count && entities[$0].kind == .polymer } ?? false
            let lastPolymer = rs.last(where: { isPolymer(model.residues[$0], atoms, polymerChain: polymerChain) })
            for r in rs {
                let res = model.residues[r]
                let range = clamp(res.atomStart, res.atomEnd, n)
                for a in range { writeAtom(atoms, a, residue: res, chainID: chain.id, line: &line, into: &out) }
                if r == lastPolymer, let lastAtom = range.last {
                    var ter = PDBLine("TER   ")
                    // The serial after the chain's last atom; left blank when it cannot be written.
                    let serial = PDBLine.hybrid36(Int(atoms.serials[lastAtom]) + 1, width: 5)
                    if serial.first != "*" { ter.putRight(serial, col: 7, width: 5) }
                    ter.putResidue(res, chainID: chain.id)
                    ter.emit(into: &out)
                }
            }
        }
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

    static func writeAtom(_ atoms: AtomTable, _ a: Int, residue: Residue?, chainID: String,
                          line: inout PDBLine, into out: inout TextWriterBuffer) {
        line.clear()
        line.putLeft(atoms.isHetero[a] ? "HETATM" : "ATOM  ", col: 1, width: 6)
        line.putSerial(Int(atoms.serials[a]))
        let element = atoms.elements[a]
        line.putAtomName(atoms.names[a], oneLetterElement: element.symbol.utf8.count == 1)
        let alt = atoms.altLocs[a]
        if alt >= 0x21 && alt < 0x7F { line.put(alt, col: 17) }
        if let residue { line.putResidue(residue, chainID: chainID) }
        let p = atoms.positions[a]
        line.putFixed(Double(p.x), col: 31, width: 8, decimals: 3)
        line.putFixed(Double(p.y), col: 39, width: 8, decimals: 3)
        line.putFixed(Double(p.z), col: 47, width: 8, decimals: 3)
        line.putFixed(Double(atoms.occupancies[a]), col: 55, width: 6, decimals: 2)
        line.putFixed(Double(atoms.bFactors[a]), col: 61, width: 6, decimals: 2)
        line.putRight(element.symbol.uppercased(), col: 77, width: 2)
        let q = Int(atoms.formalCharges[a])
        if q != 0 {
            line.put(UInt8(min(q.magnitude, 9)) + 0x30, col: 79)
            line.put(q > 0 ? 0x2B : 0x2D, col: 80)
        }
        line.emit(into: &out)
    }

    // MARK: - CONECT

    /// CONECT records for `Model.bonds` when every model states the same bonds (by model 1's serials).
    static func writeConect(_ s: Structure, into out: inout TextWriterBuffer) {
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
                line.putSerial(Int(first.atoms.serials[i]))
                for (slot, j) in list[k..<min(k + 4, list.count)].enumerated() {
                    line.putRight(PDBLine.hybrid36(Int(first.atoms.serials[j]), width: 5), col: 12 + 5 * slot, width: 5)
                }
                line.emit(into: &out)
                k += 4
            }
        }
    }
}

/// One 80-column record being assembled; columns are 1-based as in the PDB format description.
struct PDBLine {
    var b = [UInt8](repeating: 0x20, count: 80)

    init(_ record: String) { putLeft(record, col: 1, width: 6) }

    mutating func clear() { for i in 0..<80 { b[i] = 0x20 } }

    /// One byte at `col`; bytes outside printable ASCII (control characters, UTF-8) become "?".
    mutating func put(_ byte: UInt8, col: Int) {
        if col >= 1 && col <= 80 { b[col - 1] = (byte >= 0x20 && byte < 0x7F) ? byte : 0x3F }
    }

    /// Text from `col`, cut to `width`.
    mutating func putLeft(_ s: String, col: Int, width: Int) {
        var i = 0
        for c in s.utf8 {
            guard i < width else { break }
            put(c, col: col + i)
            i += 1
        }
    }

    /// Text right-justified in `width` columns (cut on the left when longer).
    mutating func putRight(_ s: String, col: Int, width: Int) {
        let u = Array(s.utf8.suffix(width))
        putLeft(String(decoding: u, as: UTF8.self), col: col + width - u.count, width: width)
    }

    mutating func putSerial(_ serial: Int) {
        putRight(PDBLine.hybrid36(serial, width: 5), col: 7, width: 5)
    }

    /// Columns 13-16: names shorter than 4 characters of one-letter elements start in column 14.
    mutating func putAtomName(_ name: String, oneLetterElement: Bool) {
        let n = name.utf8.count
        putLeft(name, col: (n < 4 && oneLetterElement) ? 14 : 13, width: 4)
    }

    /// Residue name (18-20), chain id (22, or 21-22 for two characters), number (23-26), insertion code (27).
    mutating func putResidue(_ res: Residue, chainID: String) {
        let chain = String(decoding: chainID.utf8.prefix(2), as: UTF8.self)
        let nameLength = res.name.utf8.count
        if nameLength == 4 && chain.utf8.count <= 1 {
            putLeft(res.name, col: 18, width: 4)
        } else {
            putRight(String(decoding: res.name.utf8.prefix(3), as: UTF8.self), col: 18, width: 3)
        }
        putRight(chain, col: 21, width: 2)
        putRight(PDBLine.hybrid36(Int(max(res.number, -999)), width: 4), col: 23, width: 4)
        if res.insertionCode >= 0x21 && res.insertionCode < 0x7F { put(res.insertionCode, col: 27) }
    }

    /// A number right-justified in `width` columns with `decimals` digits, fewer when it would not fit.
    mutating func putFixed(_ v: Double, col: Int, width: Int, decimals: Int) {
        var d = decimals
        var text: [UInt8] = []
        while true {
            text.removeAll(keepingCapacity: true)
            TextWriterBuffer.fixed(v, decimals: d, into: &text)
            if text.count <= width { break }
            if d == 0 {
                // Beyond what the field holds: the largest magnitude it can show.
                let limit = v < 0 ? -(PDBLine.power10(width - 1) - 1) : PDBLine.power10(width) - 1
                text.removeAll(keepingCapacity: true)
                TextWriterBuffer.decimal(limit, into: &text)
                break
            }
            d -= 1
        }
        let start = col + width - text.count
        for (k, c) in text.enumerated() { put(c, col: start + k) }
    }

    static func power10(_ e: Int) -> Int { var p = 1; for _ in 0..<e { p *= 10 }; return p }

    /// Decimal while the number fits `width` columns, then hybrid-36 (upper-case block, then
    /// lower-case block); "*****" beyond. Negative numbers that do not fit are clamped.
    static func hybrid36(_ n: Int, width: Int) -> String {
        let p10 = power10(width)
        if n < 0 {
            return String(max(n, -(power10(width - 1) - 1)))
        }
        if n < p10 { return String(n) }
        var p36 = 1
        for _ in 0..<(width - 1) { p36 *= 36 }
        var v = n - p10 + 10 * p36
        var digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ".utf8
        if v >= 36 * p36 {
            v = n - p10 - 26 * p36 + 10 * p36
            digits = "0123456789abcdefghijklmnopqrstuvwxyz".utf8
            if v >= 36 * p36 { return String(repeating: "*", count: width) }
        }
        let table = Array(digits)
        var out = [UInt8](repeating: 0x30, count: width)
        for k in stride(from: width - 1, through: 0, by: -1) { out[k] = table[v % 36]; v /= 36 }
        return String(decoding: out, as: UTF8.self)
    }

    /// The record padded to 80 columns, as wwPDB files are.
    func emit(into out: inout TextWriterBuffer) {
        out.append(contentsOf: b)
        out.append(0x0A)
    }
}
