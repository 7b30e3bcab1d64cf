/// Reads MDL molfiles and SD files (V2000 and V3000 connection tables, `M  CHG`, data items).
///
/// Each record becomes one `Model` (numbered 1, 2, … in file order) holding one chain "A" with one
/// residue numbered 1. The residue is named after the record's title line when that is a short code
/// (1–3 letters or digits, e.g. "ATP"), otherwise "LIG". Atoms are named element + 1-based index in
/// the record ("C1", "O2", …), are HETATMs, and have serials 1…n. The record's bonds are kept in
/// `Model.bonds` (0-based atom indices); its data items and title are in `Structure.recordProperties`
/// (one dictionary per model, the title under "title").
enum SDFReader {
    static func read(_ bytes: UnsafeBufferPointer<UInt8>, fileName: String, limits: ReadLimits = .standard) throws -> Structure {
        var parser = SDFParser(lines: MoleculeTextLines(bytes), fileName: fileName, limits: limits)
        return try parser.parse()
    }
}

/// One SD file being read, record by record; the V3000 connection table is in SDFV3000.swift.
struct SDFParser {
    var lines: MoleculeTextLines
    let fileName: String
    let limits: ReadLimits
    var sawTerminator = false

    // The record being read.
    var atoms = AtomTable()
    var bonds: [ModelBond] = []
    var properties: [String: String] = [:]
    var sawChargeLine = false

    init(lines: MoleculeTextLines, fileName: String, limits: ReadLimits) {
        self.lines = lines
        self.fileName = fileName
        self.limits = limits
    }

    func error(_ message: String, field: String?, line: Int? = nil) -> StructureReadError {
        StructureReadError(file: fileName, line: line ?? max(1, lines.lineNumber), field: field, message: message)
    }

    /// The error for input that ends (or a record that stops) before `M  END`.
    func missingEnd(_ what: String) -> StructureReadError {
        error("\(what) before the connection table's M  END line", field: "M  END")
    }

    mutating func parse() throws -> Structure {
        var structure = Structure()
        var records = 0, atomsRead = 0
        while !lines.restIsBlank {
            guard let titleLine = lines.next() else { break }
            let title = lines.trimmed(titleLine)
            // "$$$$" straight after "$$$$": an empty record, skipped.
            if lines.equals(title, "$$$$") { sawTerminator = true; continue }
            if let why = limits.refusesModel(after: records) {
                throw StructureReadError(file: fileName, line: lines.lineNumber, field: "header", message: why, isTooLarge: true)
            }
            try readRecord()
            records += 1
            atomsRead += atoms.count
            if let why = limits.refusesAtoms(0, after: atomsRead) {
                throw StructureReadError(file: fileName, line: lines.lineNumber, field: "atom block", message: why, isTooLarge: true)
            }

            let titleText = lines.string(title)
            var model = Model(number: records)
            model.atoms = atoms
            if !atoms.isEmpty {
                model.residues = [Residue(name: SDFParser.residueName(titleText), number: 1,
                                          atomStart: 0, atomEnd: Int32(atoms.count))]
                model.chains = [Chain(id: "A", labelID: "A", residueStart: 0, residueEnd: 1)]
            }
            model.bonds = bonds
            structure.models.append(model)
            if records == 1 { structure.metadata.title = titleText }
            var props = properties
            if props["title"] == nil { props["title"] = titleText }
            structure.recordProperties.append(props)
        }
        guard records > 0 else {
            throw StructureReadError(file: fileName, line: 1, field: "header",
                                     message: "no molecule record (empty input)")
        }
        structure.sourceFormat = (records == 1 && !sawTerminator) ? .mol2000 : .sdf
        return structure
    }

    /// A title that looks like a component code ("ATP", "hem") names the residue; anything else gives "LIG".
    static func residueName(_ title: String) -> String {
        let u = title.utf8
        guard (1...3).contains(u.count) else { return "LIG" }
        for b in u {
            let isAlnum = (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
            if !isAlnum { return "LIG" }
        }
        return title.uppercased()
    }

    // MARK: - One record

    mutating func readRecord() throws {
        atoms = AtomTable()
        bonds = []
        properties = [:]
        sawChargeLine = false

        // Header: program/timestamp line and comment line, then the counts line.
        for what in ["program line (header line 2)", "comment line (header line 3)"] {
            guard let l = lines.next() else {
                throw error("input ends before the record's \(what)", field: "header")
            }
            if lines.equals(lines.trimmed(l), "$$$$") { throw missingEnd("record ends in its header") }
        }
        guard let counts = lines.next() else {
            throw error("input ends before the record's counts line", field: "counts line")
        }
        if lines.equals(lines.trimmed(counts), "$$$$") { throw missingEnd("record ends in its header") }

        if contains(counts, "V3000") {
            try readV3000()
        } else {
            let (na, nb) = try countsV2000(counts)
            try readV2000(atomCount: na, bondCount: nb)
        }
        try readDataItems()
    }

    func contains(_ r: Range<Int>, _ text: StaticString) -> Bool {
        let n = text.utf8CodeUnitCount
        guard r.count >= n else { return false }
        var i = r.lowerBound
        while i + n <= r.upperBound {
            if lines.hasPrefix(i..<r.upperBound, text) { return true }
            i += 1
        }
        return false
    }

    func countsV2000(_ l: Range<Int>) throws -> (Int, Int) {
        var na = lines.int(lines.columns(l, 0, 3))
        var nb = lines.int(lines.columns(l, 3, 6))
        if na == nil || nb == nil {
            // Not in fixed columns: accept whitespace-separated counts.
            let t = lines.tokens(l, limit: 2)
            if t.count == 2 { na = lines.int(t[0]); nb = lines.int(t[1]) }
        }
        guard let na else { throw error("atom count is not a number", field: "counts line atoms (columns 1-3)") }
        guard let nb else { throw error("bond count is not a number", field: "counts line bonds (columns 4-6)") }
        guard na >= 0, na <= MoleculeTextLimits.maxAtomsPerRecord else {
            throw error("atom count \(na) is out of range 0...\(MoleculeTextLimits.maxAtomsPerRecord)",
                        field: "counts line atoms (columns 1-3)")
        }
        guard nb >= 0, nb <= MoleculeTextLimits.maxBondsPerRecord else {
            throw error("bond count \(nb) is out of range 0...\(MoleculeTextLimits.maxBondsPerRecord)",
                        field: "counts line bonds (columns 4-6)")
        }
        return (na, nb)
    }

    // MARK: - V2000

    mutating func readV2000(atomCount na: Int, bondCount nb: Int) throws {
        // Reserve no more than the remaining input could hold (a damaged count must not allocate gigabytes).
        let remaining = lines.bytes.count - lines.position
        atoms.reserveCapacity(min(na, remaining / 32 + 1))
        bonds.reserveCapacity(min(nb, remaining / 10 + 1))

        for i in 0..<na {
            guard let l = lines.next() else {
                throw error("input ends after \(i) of the \(na) atoms the counts line declares", field: "atom block")
            }
            try appendV2000Atom(l, index: i)
        }
        for k in 0..<nb {
            guard let l = lines.next() else {
                throw error("input ends after \(k) of the \(nb) bonds the counts line declares", field: "bond block")
            }
            try appendV2000Bond(l, number: k + 1, atomCount: na)
        }
        // Properties block, up to M  END.
        while true {
            guard let l = lines.next() else { throw missingEnd("input ends") }
            if lines.hasPrefix(l, "M  END") { break }
            if lines.equals(lines.trimmed(l), "$$$$") { throw missingEnd("record ends") }
            if lines.hasPrefix(l, "M  CHG") {
                try applyChargeLine(l)
            } else if lines.hasPrefix(l, "A  ") || lines.hasPrefix(l, "G  ") {
                // Atom alias / group abbreviation: the text is on the next line.
                guard lines.next() != nil else { throw missingEnd("input ends") }
            } else if lines.hasPrefix(l, "S  SKP") {
                guard let n = lines.int(lines.columns(l, 6, 9)), n >= 0 else {
                    throw error("skip count is not a number", field: "S  SKP (columns 7-9)")
                }
                for _ in 0..<n where lines.next() == nil { throw missingEnd("input ends") }
            }
        }
    }

    mutating func appendV2000Atom(_ l: Range<Int>, index i: Int) throws {
        var x = lines.double(lines.columns(l, 0, 10))
        var y = lines.double(lines.columns(l, 10, 20))
        var z = lines.double(lines.columns(l, 20, 30))
        var symbol = lines.trimmed(lines.columns(l, 31, 34))
        var chargeCode: Int? = 0
        if x != nil, y != nil, z != nil, !symbol.isEmpty {
            let c = lines.columns(l, 36, 39)
            chargeCode = lines.isBlank(c) ? 0 : lines.int(c)
        } else {
            // Not in fixed columns: "x y z symbol [massdiff charge ...]".
            let t = lines.tokens(l, limit: 6)
            if t.count >= 4 {
                x = lines.double(t[0]); y = lines.double(t[1]); z = lines.double(t[2]); symbol = t[3]
                chargeCode = t.count >= 6 ? lines.int(t[5]) : 0
            } else {
                symbol = l.upperBound..<l.upperBound
            }
        }
        let n = i + 1
        guard let x else { throw error("atom \(n): x is not a number", field: "atom block x (columns 1-10)") }
        guard let y else { throw error("atom \(n): y is not a number", field: "atom block y (columns 11-20)") }
        guard let z else { throw error("atom \(n): z is not a number", field: "atom block z (columns 21-30)") }
        guard !symbol.isEmpty else {
            throw error("atom \(n): no atom symbol", field: "atom block symbol (columns 32-34)")
        }
        guard let chargeCode else {
            throw error("atom \(n): charge code is not a number", field: "atom block charge (columns 37-39)")
        }
        // Codes 1…7 stand for +3, +2, +1, doublet radical, −1, −2, −3.
        let charge: Int8
        switch chargeCode {
        case 1...3: charge = Int8(4 - chargeCode)
        case 5...7: charge = Int8(4 - chargeCode)
        default: charge = 0
        }
        try appendAtom(index: i, symbol: symbol, x: x, y: y, z: z, charge: charge, field: "atom block")
    }

    mutating func appendAtom(index i: Int, symbol: Range<Int>, x: Double, y: Double, z: Double,
                             charge: Int8, field: String) throws {
        let p = SIMD3<Float>(Float(x), Float(y), Float(z))
        guard p.x.isFinite, p.y.isFinite, p.z.isFinite else {
            throw error("atom \(i + 1): coordinate out of range", field: "\(field) coordinates")
        }
        let element = SDFParser.element(lines.slice(symbol))
        atoms.append(Atom(name: "\(element.symbol)\(i + 1)", element: element, serial: Int32(i + 1),
                          formalCharge: charge, isHetero: true, position: p))
    }

    /// Element of an atom symbol; query atoms, R groups and lists ("A", "Q", "R#", "[C,N]") are unknown.
    static func element(_ s: UnsafeBufferPointer<UInt8>) -> Element {
        var b = s
        if b.count >= 2, b[0] == 0x22, b[b.count - 1] == 0x22 { b = UnsafeBufferPointer(rebasing: b[1..<(b.count - 1)]) }
        switch b.count {
        case 1: return Element.lookup(b[0], 0) ?? .unknown
        case 2: return Element.lookup(b[0], b[1]) ?? .unknown
        default: return .unknown
        }
    }

    mutating func appendV2000Bond(_ l: Range<Int>, number k: Int, atomCount na: Int) throws {
        var a = lines.int(lines.columns(l, 0, 3))
        var b = lines.int(lines.columns(l, 3, 6))
        var type = lines.int(lines.columns(l, 6, 9))
        if a == nil || b == nil || type == nil {
            let t = lines.tokens(l, limit: 3)
            if t.count == 3 { a = lines.int(t[0]); b = lines.int(t[1]); type = lines.int(t[2]) }
        }
        guard let a else { throw error("bond \(k): first atom is not a number", field: "bond block first atom (columns 1-3)") }
        guard let b else { throw error("bond \(k): second atom is not a number", field: "bond block second atom (columns 4-6)") }
        guard let type else { throw error("bond \(k): bond type is not a number", field: "bond block type (columns 7-9)") }
        guard a >= 1, a <= na else {
            throw error("bond \(k): atom \(a) is out of range 1...\(na)", field: "bond block first atom (columns 1-3)")
        }
        guard b >= 1, b <= na else {
            throw error("bond \(k): atom \(b) is out of range 1...\(na)", field: "bond block second atom (columns 4-6)")
        }
        guard a != b else { throw error("bond \(k) joins atom \(a) to itself", field: "bond block second atom (columns 4-6)") }
        bonds.append(ModelBond(a: Int32(a - 1), b: Int32(b - 1), order: SDFParser.order(type)))
    }

    static func order(_ type: Int) -> BondOrder {
        switch type {
        case 1: return .single
        case 2: return .double
        case 3: return .triple
        case 4: return .aromatic
        default: return .unknown
        }
    }

    /// `M  CHGnn8 aaa vvv …`: the first such line of a record replaces all the atom block's charges.
    mutating func applyChargeLine(_ l: Range<Int>) throws {
        let t = lines.tokens(lines.columns(l, 6, l.count), limit: 17)
        guard let first = t.first, let n = lines.int(first), n >= 0, n <= 8 else {
            throw error("entry count is missing or not 0...8", field: "M  CHG count (columns 7-9)")
        }
        guard t.count >= 1 + 2 * n else {
            throw error("declares \(n) entries but holds \(max(0, (t.count - 1) / 2))", field: "M  CHG")
        }
        if !sawChargeLine {
            sawChargeLine = true
            for i in atoms.formalCharges.indices { atoms.formalCharges[i] = 0 }
        }
        for e in 0..<n {
            guard let a = lines.int(t[1 + 2 * e]), a >= 1, a <= atoms.count else {
                throw error("entry \(e + 1): atom is not a number in 1...\(atoms.count)", field: "M  CHG atom")
            }
            guard let v = lines.int(t[2 + 2 * e]) else {
                throw error("entry \(e + 1): charge is not a number", field: "M  CHG charge")
            }
            atoms.formalCharges[a - 1] = Int8(clamping: v)
        }
    }

    // MARK: - Data items

    /// `> <NAME>` headers, each followed by value lines up to a blank line, until `$$$$` or the end.
    mutating func readDataItems() throws {
        while let l = lines.next() {
            let tl = lines.trimmed(l)
            if lines.equals(tl, "$$$$") { sawTerminator = true; return }
            guard !tl.isEmpty, lines.bytes[l.lowerBound] == 0x3E else { continue }  // ">"
            var name = lines.trimmed((l.lowerBound + 1)..<l.upperBound)
            if let open = name.firstIndex(where: { lines.bytes[$0] == 0x3C }) {  // "<"
                let after = (open + 1)..<name.upperBound
                let close = after.firstIndex(where: { lines.bytes[$0] == 0x3E }) ?? name.upperBound
                name = (open + 1)..<close
            }
            var value: [UInt8] = []
            var first = true
            while let v = lines.peek(), !lines.isBlank(v) {
                if lines.equals(lines.trimmed(v), "$$$$") { break }
                _ = lines.next()
                if !first { value.append(0x0A) }
                value.append(contentsOf: lines.slice(v))
                first = false
            }
            properties[lines.string(name)] = String(decoding: value, as: UTF8.self)
        }
    }
}
