import Foundation

/// Reads the fixed-column PDB format, including the large-structure conventions (hybrid-36 or
/// hexadecimal serials and residue numbers, two-character chain ids in columns 21-22).
enum PDBReader {
    static func read(_ bytes: UnsafeBufferPointer<UInt8>, fileName: String, limits: ReadLimits = .standard) throws -> Structure {
        var parser = PDBParser(bytes: bytes, fileName: fileName, limits: limits)
        return try parser.parse()
    }
}

/// One line of the file with 1-based, inclusive column access clamped to the line's length.
struct FixedColumns {
    let line: UnsafeBufferPointer<UInt8>

    @inline(__always)
    func bytes(_ from: Int, _ to: Int) -> UnsafeBufferPointer<UInt8> {
        let s = min(from - 1, line.count), e = min(to, line.count)
        return UnsafeBufferPointer(rebasing: line[s..<max(s, e)])
    }

    @inline(__always)
    func trimmed(_ from: Int, _ to: Int) -> UnsafeBufferPointer<UInt8> {
        let b = bytes(from, to)
        var i = 0, e = b.count
        while i < e, b[i] == 0x20 { i += 1 }
        while e > i, b[e - 1] == 0x20 || b[e - 1] == 0x0D { e -= 1 }
        return UnsafeBufferPointer(rebasing: b[i..<e])
    }

    func string(_ from: Int, _ to: Int) -> String { String(decoding: trimmed(from, to), as: UTF8.self) }

    @inline(__always)
    func byte(_ col: Int) -> UInt8 { col - 1 < line.count ? line[col - 1] : 0x20 }
}

struct PDBParser {
    let bytes: UnsafeBufferPointer<UInt8>
    let fileName: String
    var lineNumber = 0
    var structure = Structure()
    var builder: StructureBuilder
    var serialHex = false
    var residueHex = false
    var conect: [(Int32, Int32, Int)] = []
    var titleParts: [String] = []
    var compnd = "", source = "", keywds = "", author = ""
    var jrnl: [String: String] = [:]
    var seqres: [(chain: String, names: [String])] = []
    var remark350: [String] = []
    var hetnam: [String: String] = [:]

    init(bytes: UnsafeBufferPointer<UInt8>, fileName: String, limits: ReadLimits) {
        self.bytes = bytes
        self.fileName = fileName
        // About 81 bytes an atom line: reserve once so big files do not regrow.
        builder = StructureBuilder(reserveAtoms: bytes.count / 81, limits: limits)
    }

    func error(_ message: String, field: String? = nil) -> StructureReadError {
        StructureReadError(file: fileName, line: lineNumber, field: field, message: message)
    }

    /// A limit of `ReadLimits` passed here.
    func tooMuch(_ message: String, field: String) -> StructureReadError {
        StructureReadError(file: fileName, line: lineNumber, field: field, message: message, isTooLarge: true)
    }

    mutating func parse() throws -> Structure {
        structure.sourceFormat = .pdb
        var start = 0
        let n = bytes.count
        var sawAtoms = false
        while start < n {
            var end = n
            if let base = bytes.baseAddress, let nl = memchr(base + start, 0x0A, n - start) {
                end = base.distance(to: nl.assumingMemoryBound(to: UInt8.self))
            }
            lineNumber += 1
            var lineEnd = end
            if lineEnd > start, bytes[lineEnd - 1] == 0x0D { lineEnd -= 1 }
            let line = FixedColumns(line: UnsafeBufferPointer(rebasing: bytes[start..<lineEnd]))
            start = end + 1
            guard line.line.count >= 3 else { continue }
            let r = line.line
            // Dispatch on the record name without building a String.
            let c0 = r[0], c1 = r[1], c2 = r[2]
            let c3 = r.count > 3 ? r[3] : 0x20, c4 = r.count > 4 ? r[4] : 0x20, c5 = r.count > 5 ? r[5] : 0x20
            if c0 == 0x41, c1 == 0x54, c2 == 0x4F, c3 == 0x4D {                       // ATOM
                try atom(line, hetero: false); sawAtoms = true
            } else if c0 == 0x48, c1 == 0x45, c2 == 0x54, c3 == 0x41, c4 == 0x54, c5 == 0x4D { // HETATM
                try atom(line, hetero: true); sawAtoms = true
            } else {
                let name = String(decoding: line.bytes(1, 6), as: UTF8.self).trimmingSpaces
                try record(name, line)
            }
        }
        // A file of header records alone (HEADER, TITLE, CRYST1, … and no ATOM or HETATM) is its
        // metadata with no model: `info` shows it, and drawing it says why there is nothing to draw.
        if !sawAtoms, n == 0 { throw StructureReadError(file: fileName, message: "the file is empty") }
        structure.models = builder.finish().filter { sawAtoms || !$0.atoms.isEmpty }
        finishMetadata()
        finishConect()
        return structure
    }

    mutating func record(_ name: String, _ line: FixedColumns) throws {
        switch name {
        case "MODEL":
            let number = NumberParsing.int(line.bytes(11, 14)) ?? (builder.models.count + 1)
            builder.beginModel(number)
            if let why = builder.refusal { throw tooMuch(why, field: "MODEL") }
        case "ENDMDL":
            builder.endModel()
        case "TER":
            builder.breakResidue()
        case "HEADER":
            structure.metadata.classification = line.string(11, 50)
            structure.metadata.depositionDate = PDBParser.isoDate(line.string(51, 59))
            structure.metadata.id = line.string(63, 66)
        case "TITLE": titleParts.append(line.string(11, 80))
        case "CRYST1":
            // Unit cells of 1 Å (NMR and EM entries' placeholder) are no crystal.
            let v = [(7, 15), (16, 24), (25, 33), (34, 40), (41, 47), (48, 54)].map { NumberParsing.double(line.bytes($0.0, $0.1)) }
            if let a = v[0], let b = v[1], let c = v[2], let al = v[3], let be = v[4], let ga = v[5], !(a == 1 && b == 1 && c == 1) {
                let cell = UnitCell(a: a, b: b, c: c, alpha: al, beta: be, gamma: ga)
                if cell.problem == nil { structure.metadata.cell = cell; structure.metadata.spaceGroup = line.string(56, 66) }
            }
        case "COMPND": compnd += " " + line.string(11, 80)
        case "SOURCE": source += " " + line.string(11, 79)
        case "KEYWDS": keywds += " " + line.string(11, 79)
        case "AUTHOR": author += line.string(11, 79)
        case "HETNAM":
            // Continued lines (columns 9-10) go on the name: a hyphen at a line's end joins without a space.
            let code = line.string(12, 14), text = line.string(16, 70)
            guard !code.isEmpty, !text.isEmpty, hetnam.count < 10_000 || hetnam[code] != nil else { break }
            if let before = hetnam[code] { hetnam[code] = before + (before.hasSuffix("-") ? "" : " ") + text } else { hetnam[code] = text }
        case "EXPDTA":
            let text = line.string(11, 79)
            structure.metadata.experimentalMethods += text.split(separator: ";").map { String($0).trimmingSpaces }.filter { !$0.isEmpty }
        case "JRNL":
            let key = line.string(13, 16)
            jrnl[key, default: ""] += (key == "AUTH" ? "" : " ") + line.string(20, 79)
        case "REMARK":
            let number = NumberParsing.int(line.bytes(8, 10))
            if number == 2, structure.metadata.resolution == nil {
                let text = line.string(11, 80)
                if text.hasPrefix("RESOLUTION.") {
                    let parts = text.split(separator: " ")
                    if parts.count > 1, let r = Double(parts[1]) { structure.metadata.resolution = r }
                }
            } else if number == 350 {
                remark350.append(line.string(11, 80))
            }
        case "SEQRES":
            let chain = line.string(11, 12)
            let names = line.string(20, 80).split(separator: " ").map(String.init)
            if let last = seqres.last, last.chain == chain { seqres[seqres.count - 1].names += names }
            else { seqres.append((chain, names)) }
        case "HELIX":
            let helixClass = HelixClass(rawValue: NumberParsing.int(line.bytes(39, 40)) ?? 1) ?? .alpha
            if let s = try residueRef(line, chain: (19, 20), number: (22, 25), icode: 26),
               let e = try residueRef(line, chain: (31, 32), number: (34, 37), icode: 38) {
                structure.secondaryStructureRecords.append(.init(kind: .helix(helixClass), start: s, end: e))
            }
        case "SHEET":
            let sheet = line.string(12, 14)
            let sense = NumberParsing.int(line.bytes(39, 40)) ?? 0
            if let s = try residueRef(line, chain: (21, 22), number: (23, 26), icode: 27),
               let e = try residueRef(line, chain: (32, 33), number: (34, 37), icode: 38) {
                structure.secondaryStructureRecords.append(.init(kind: .strand(sheetID: sheet, sense: sense), start: s, end: e))
            }
        case "SSBOND":
            if let a = try residueRef(line, chain: (16, 16), number: (18, 21), icode: 22),
               let b = try residueRef(line, chain: (30, 30), number: (32, 35), icode: 36) {
                structure.explicitBonds.append(ExplicitBond(
                    a: AtomRef(residue: a, residueName: line.string(12, 14), atomName: "SG"),
                    b: AtomRef(residue: b, residueName: line.string(26, 28), atomName: "SG"), kind: .disulfide))
            }
        case "LINK", "LINKR":
            if let a = try residueRef(line, chain: (21, 22), number: (23, 26), icode: 27),
               let b = try residueRef(line, chain: (51, 52), number: (53, 56), icode: 57) {
                let n1 = line.string(13, 16), n2 = line.string(43, 46)
                let metal = [n1, n2].contains { Element(symbol: $0).map(\.isMetal) ?? false }
                structure.explicitBonds.append(ExplicitBond(
                    a: AtomRef(residue: a, residueName: line.string(18, 20), atomName: n1, altLoc: PDBParser.code(line.byte(17))),
                    b: AtomRef(residue: b, residueName: line.string(48, 50), atomName: n2, altLoc: PDBParser.code(line.byte(47))),
                    kind: metal ? .metal : .covalent))
            }
        case "CONECT":
            var hex = serialHex
            guard let from = PDBNumberField.decode(line.bytes(7, 11), width: 5, hexMode: &hex) else {
                throw error("CONECT atom serial is not a number", field: "CONECT serial (columns 7-11)")
            }
            for col in stride(from: 12, through: 27, by: 5) {
                let f = line.bytes(col, col + 4)
                if f.allSatisfy({ $0 == 0x20 }) { continue }
                guard let to = PDBNumberField.decode(f, width: 5, hexMode: &hex) else {
                    throw error("bonded atom serial is not a number", field: "CONECT (columns \(col)-\(col + 4))")
                }
                conect.append((Int32(clamping: from), Int32(clamping: to), lineNumber))
            }
        default: break
        }
    }

    static func code(_ b: UInt8) -> UInt8 { b == 0x20 ? 0 : b }

    func residueRef(_ line: FixedColumns, chain: (Int, Int), number: (Int, Int), icode: Int) throws -> ResidueRef? {
        var hex = residueHex
        guard let n = PDBNumberField.decode(line.bytes(number.0, number.1), width: 4, hexMode: &hex) else {
            throw error("residue number is not a number", field: "columns \(number.0)-\(number.1)")
        }
        return ResidueRef(chainID: line.string(chain.0, chain.1), number: Int32(clamping: n), insertionCode: PDBParser.code(line.byte(icode)))
    }

    @inline(__always)
    mutating func atom(_ line: FixedColumns, hetero: Bool) throws {
        let r = line.line
        guard r.count >= 54 else {
            throw error("line is \(r.count) characters; an ATOM/HETATM record needs at least 54 (coordinates in columns 31-54)", field: hetero ? "HETATM" : "ATOM")
        }
        guard let x = NumberParsing.double(line.bytes(31, 38)) else { throw error("x is not a number: '\(line.string(31, 38))'", field: "x (columns 31-38)") }
        guard let y = NumberParsing.double(line.bytes(39, 46)) else { throw error("y is not a number: '\(line.string(39, 46))'", field: "y (columns 39-46)") }
        guard let z = NumberParsing.double(line.bytes(47, 54)) else { throw error("z is not a number: '\(line.string(47, 54))'", field: "z (columns 47-54)") }
        guard abs(x) < 1e6, abs(y) < 1e6, abs(z) < 1e6 else { throw error("coordinate out of range", field: "coordinates (columns 31-54)") }
        let serial = PDBNumberField.decode(line.bytes(7, 11), width: 5, hexMode: &serialHex) ?? 0
        let resField = line.bytes(23, 26)
        guard var resNum = PDBNumberField.decode(resField, width: 4, hexMode: &residueHex) else {
            throw error("residue number is not a number: '\(line.string(23, 26))'", field: "residue number (columns 23-26)")
        }
        // Residue numbers past 9999 that spill into the insertion-code column and beyond, as some
        // MD tools write them ("10000" in columns 23-27): read as GROMACS and VMD read them.
        var icodeColumn = 27
        if !residueHex, line.byte(27) >= 0x30, line.byte(27) <= 0x39, resField.count == 4,
           resField.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D }) {
            var end = 27
            while end < 30, line.byte(end + 1) >= 0x30, line.byte(end + 1) <= 0x39 { end += 1 }
            if let wide = NumberParsing.int(line.bytes(23, end)) { resNum = wide; icodeColumn = 0 }
        }
        let occupancy = r.count >= 60 ? (NumberParsing.double(line.bytes(55, 60)) ?? 1) : 1
        let bFactor = r.count >= 66 ? (NumberParsing.double(line.bytes(61, 66)) ?? 0) : 0
        let name = line.trimmed(13, 16)
        let element = PDBParser.element(line, name: name, hetero: hetero)
        var charge: Int8 = 0
        if r.count >= 80 {
            let c = line.bytes(79, 80)
            if c.count == 2, c[0] >= 0x30, c[0] <= 0x39 { charge = Int8(c[0] - 0x30) * (c[1] == 0x2D ? -1 : 1) }
        }
        builder.residue(chain: line.trimmed(21, 22), name: line.trimmed(18, 20), number: Int32(clamping: resNum),
                        insertionCode: icodeColumn == 0 ? 0 : PDBParser.code(line.byte(icodeColumn)))
        builder.addAtom(Atom(name: String(decoding: name, as: UTF8.self), element: element, serial: Int32(clamping: serial),
                             altLoc: PDBParser.code(line.byte(17)), occupancy: Float(occupancy), bFactor: Float(bFactor),
                             formalCharge: charge, isHetero: hetero, position: SIMD3(Float(x), Float(y), Float(z))))
        if let why = builder.refusal { throw tooMuch(why, field: hetero ? "HETATM" : "ATOM") }
    }

    /// Element from columns 77-78, or inferred from the atom name's alignment when that is blank.
    static func element(_ line: FixedColumns, name: UnsafeBufferPointer<UInt8>, hetero: Bool) -> Element {
        let e = line.trimmed(77, 78)
        if !e.isEmpty, let el = Element.lookup(e[0], e.count > 1 ? e[1] : 0), el.atomicNumber > 0 { return el }
        let c13 = line.byte(13), c14 = line.byte(14)
        let isLetter = { (b: UInt8) in (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) }
        if !isLetter(c13) {
            // " CA " or "1HB ": the element is the letter in column 14.
            return isLetter(c14) ? (Element.lookup(c14, 0) ?? .unknown) : .unknown
        }
        // Name starts in column 13: a two-letter element ("FE", "ZN", "CL"), or a four-character
        // hydrogen name ("HD21"); a name equal to a two-letter symbol in a HETATM is that element.
        let two = isLetter(c14) ? Element.lookup(c13, c14) : nil
        if name.count <= 2, hetero, let two { return two }
        if Element.upper(c13) == 0x48 { return .hydrogen }
        if let two, hetero || name.count <= 2 {
            // An amino acid's or nucleotide's atom names its element by its first letter, wherever the
            // name starts: CHARMM and MD tools write "CA  " from column 13 for the α-carbon, not calcium.
            let residue = line.trimmed(18, 20)
            if !hetero, ResidueKind.of(String(decoding: residue, as: UTF8.self)) != .other, let one = Element.lookup(c13, 0) { return one }
            return two
        }
        return Element.lookup(c13, 0) ?? .unknown
    }

    static let months = ["JAN": "01", "FEB": "02", "MAR": "03", "APR": "04", "MAY": "05", "JUN": "06",
                         "JUL": "07", "AUG": "08", "SEP": "09", "OCT": "10", "NOV": "11", "DEC": "12"]

    /// "09-MAY-91" → "1991-05-09".
    static func isoDate(_ s: String) -> String {
        let p = s.split(separator: "-")
        guard p.count == 3, let d = Int(p[0]), let m = months[String(p[1])], let y = Int(p[2]) else { return s }
        let year = y < 50 ? 2000 + y : 1900 + y
        return "\(year)-\(m)-\(d < 10 ? "0" : "")\(d)"
    }

    /// CONECT serials → explicit bonds between atoms of the first model.
    mutating func finishConect() {
        guard !conect.isEmpty, let model = structure.models.first else { return }
        // Serials of the first model (atoms may have moved when chain parts were merged).
        var index: [Int32: Int] = [:]
        index.reserveCapacity(model.atoms.count)
        for (i, serial) in model.atoms.serials.enumerated() where index[serial] == nil { index[serial] = i }
        let residueOf = model.residueIndexOfAtoms()
        let chainOf = model.chainIndexOfResidues()
        func ref(_ atom: Int) -> AtomRef {
            let r = Int(residueOf[atom]), res = model.residues[r]
            return AtomRef(residue: ResidueRef(chainID: model.chains[Int(chainOf[r])].id, number: res.number, insertionCode: res.insertionCode),
                           residueName: res.name, atomName: model.atoms.names[atom], altLoc: model.atoms.altLocs[atom])
        }
        var seen = Set<UInt64>()
        // CONECT records naming serials no atom has occur in real files (1A8O); they are skipped.
        for (a, b, _) in conect {
            guard let i = index[a], let j = index[b] else { continue }
            let key = UInt64(UInt32(min(i, j))) << 32 | UInt64(UInt32(max(i, j)))
            if i == j || !seen.insert(key).inserted { continue }
            structure.explicitBonds.append(ExplicitBond(a: ref(Int(i)), b: ref(Int(j)), kind: .covalent))
        }
    }
}

extension StringProtocol {
    /// The string without leading and trailing spaces (and a stray carriage return).
    var trimmingSpaces: String { trimming(" \r\t") }

    func trimming(_ set: String) -> String {
        let chars = Set(set)
        var s = Substring(self)
        while let f = s.first, chars.contains(f) { s = s.dropFirst() }
        while let l = s.last, chars.contains(l) { s = s.dropLast() }
        return String(s)
    }

    /// Runs of white space folded to one space, ends trimmed.
    var collapsingSpaces: String { split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }).joined(separator: " ") }
}
