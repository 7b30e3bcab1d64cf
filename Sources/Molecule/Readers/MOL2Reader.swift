/// Reads Tripos MOL2 files: `@<TRIPOS>MOLECULE` (name, counts), `@<TRIPOS>ATOM`, `@<TRIPOS>BOND`
/// and `@<TRIPOS>SUBSTRUCTURE` (for chain ids); other sections are skipped.
///
/// As SD files are read, each molecule becomes one `Model` (numbered 1, 2, … in file order), with
/// its bonds in `Model.bonds` and its name under "title" in `Structure.recordProperties` (the
/// first molecule's name is the title). Atoms keep their names and ids (as serials); the element
/// comes from the SYBYL type before its dot (`C.ar` → C, `Cl` → Cl, `H.spc` → H), `Du` dummies
/// are atoms of unknown element and `LP` lone pairs are not atoms (they and their bonds are
/// dropped, as RDKit does). Residues come from `subst_id`/`subst_name`: a new residue starts
/// whenever either changes, and a name ending in digits, as Open Babel writes them ("ALA12",
/// "HOH301"), is split into the residue name and number; chains come from the SUBSTRUCTURE
/// section's chain column, else "A". Bond types 1, 2, 3, `ar` (aromatic), `am` (amide, single),
/// `du`/`un` (unknown order) are kept; `nc` (not connected) is no bond. Partial charges are
/// checked to be numbers but not kept.
enum MOL2Reader {
    static func read(_ bytes: UnsafeBufferPointer<UInt8>, fileName: String, limits: ReadLimits = .standard) throws -> Structure {
        var parser = MOL2Parser(lines: MoleculeTextLines(bytes), fileName: fileName, limits: limits)
        return try parser.parse()
    }
}

/// One MOL2 file being read, molecule by molecule.
struct MOL2Parser {
    var lines: MoleculeTextLines
    let fileName: String
    let limits: ReadLimits
    /// Atoms of the molecules before the one being read.
    var atomsRead = 0

    /// One atom line as read, before residues and chains are known.
    struct AtomLine {
        var atom: Atom
        var substID: Int?
        var substName: String?
    }

    /// The molecule being read.
    struct Molecule {
        var headerLine = 0
        var name = ""
        var declaredAtoms = 0
        var declaredBonds: Int?
        var atoms: [AtomLine] = []
        var sawAtomSection = false
        var sawBondSection = false
        /// Atom ids to indices in `atoms`; lone pairs map to nil.
        var index: [Int: Int?] = [:]
        var bonds: [ModelBond] = []
        var bondLines = 0
        var lonePairs = 0
        var chains: [Int: String] = [:]
        var properties: [String: String] = [:]
    }

    init(lines: MoleculeTextLines, fileName: String, limits: ReadLimits) {
        self.lines = lines
        self.fileName = fileName
        self.limits = limits
    }

    func error(_ message: String, field: String?, line: Int? = nil, tooLarge: Bool = false) -> StructureReadError {
        StructureReadError(file: fileName, line: line ?? max(1, lines.lineNumber), field: field, message: message, isTooLarge: tooLarge)
    }

    /// The section a line opens ("ATOM" for `@<TRIPOS>ATOM`), or nil when it opens none.
    func section(_ l: Range<Int>) -> String? {
        let t = lines.trimmed(l)
        guard lines.hasPrefix(t, "@<TRIPOS>") else { return nil }
        return lines.string((t.lowerBound + 9)..<t.upperBound).uppercased()
    }

    func isSkippable(_ l: Range<Int>) -> Bool {
        let t = lines.trimmed(l)
        return t.isEmpty || lines.bytes[t.lowerBound] == 0x23  // "#"
    }

    mutating func parse() throws -> Structure {
        var structure = Structure()
        structure.sourceFormat = .mol2
        var molecule: Molecule?
        var current = ""  // the section being read

        func finish(_ m: Molecule, into structure: inout Structure) throws {
            if let why = limits.refusesModel(after: structure.models.count) {
                throw error(why, field: "@<TRIPOS>MOLECULE", line: m.headerLine, tooLarge: true)
            }
            let model = try build(m, number: structure.models.count + 1)
            atomsRead += model.atoms.count
            if let why = limits.refusesAtoms(0, after: atomsRead) {
                throw error(why, field: "@<TRIPOS>ATOM", line: m.headerLine, tooLarge: true)
            }
            if structure.models.isEmpty { structure.metadata.title = m.name }
            structure.models.append(model)
            var props = m.properties
            props["title"] = m.name
            structure.recordProperties.append(props)
        }

        while let l = lines.next() {
            if let name = section(l) {
                current = name
                if name == "MOLECULE" {
                    if let m = molecule { try finish(m, into: &structure) }
                    molecule = try readHeader()
                    current = ""
                } else if molecule == nil {
                    throw error("the @<TRIPOS>\(name) section comes before any @<TRIPOS>MOLECULE", field: "@<TRIPOS>MOLECULE")
                } else if name == "ATOM" {
                    if molecule?.sawAtomSection == true { throw error("a second @<TRIPOS>ATOM section in one molecule", field: "@<TRIPOS>ATOM") }
                    molecule?.sawAtomSection = true
                } else if name == "BOND" {
                    if molecule?.sawBondSection == true { throw error("a second @<TRIPOS>BOND section in one molecule", field: "@<TRIPOS>BOND") }
                    guard molecule?.sawAtomSection == true else {
                        throw error("the @<TRIPOS>BOND section comes before the molecule's @<TRIPOS>ATOM section", field: "@<TRIPOS>BOND")
                    }
                    molecule?.sawBondSection = true
                }
                continue
            }
            if isSkippable(l) { continue }
            guard var m = molecule else {
                throw error("not a MOL2 line before the first @<TRIPOS>MOLECULE: '\(lines.string(lines.trimmed(l)).prefix(40))'",
                            field: "@<TRIPOS>MOLECULE")
            }
            molecule = nil  // read and changed alone, so the arrays are not copied
            switch current {
            case "ATOM": try readAtom(l, into: &m)
            case "BOND": try readBond(l, into: &m)
            case "SUBSTRUCTURE": try readSubstructure(l, into: &m)
            default: break  // other sections (CRYSIN, COMMENT, SET, UNITY_ATOM_ATTR, …) are not read
            }
            molecule = m
        }
        guard let last = molecule else {
            throw StructureReadError(file: fileName, line: max(1, lines.lineNumber), field: "@<TRIPOS>MOLECULE",
                                     message: "no @<TRIPOS>MOLECULE section")
        }
        try finish(last, into: &structure)
        return structure
    }

    // MARK: - Sections

    /// The lines after `@<TRIPOS>MOLECULE`: the name, the counts, the molecule and charge types and
    /// an optional comment, up to the next section.
    mutating func readHeader() throws -> Molecule {
        var m = Molecule()
        m.headerLine = lines.lineNumber
        guard let nameLine = lines.next(), section(nameLine) == nil else {
            throw error("the molecule has no name line after @<TRIPOS>MOLECULE", field: "@<TRIPOS>MOLECULE name")
        }
        let name = lines.string(lines.trimmed(nameLine))
        m.name = name.allSatisfy { $0 == "*" } ? "" : name
        guard let counts = lines.next(), section(counts) == nil else {
            throw error("the molecule has no counts line (num_atoms num_bonds …)", field: "@<TRIPOS>MOLECULE counts")
        }
        let t = lines.tokens(counts, limit: 5)
        guard let first = t.first, let na = lines.int(first) else {
            throw error("the atom count is not a number", field: "@<TRIPOS>MOLECULE num_atoms (field 1)")
        }
        guard na >= 0, na <= MoleculeTextLimits.maxAtomsPerRecord else {
            throw error("atom count \(na) is out of range 0...\(MoleculeTextLimits.maxAtomsPerRecord)",
                        field: "@<TRIPOS>MOLECULE num_atoms (field 1)")
        }
        if let why = limits.refusesAtoms(na, after: atomsRead) {
            throw error("\(na) atoms: \(why)", field: "@<TRIPOS>MOLECULE num_atoms (field 1)", tooLarge: true)
        }
        m.declaredAtoms = na
        if t.count > 1 {
            guard let nb = lines.int(t[1]) else {
                throw error("the bond count is not a number", field: "@<TRIPOS>MOLECULE num_bonds (field 2)")
            }
            guard nb >= 0, nb <= MoleculeTextLimits.maxBondsPerRecord else {
                throw error("bond count \(nb) is out of range 0...\(MoleculeTextLimits.maxBondsPerRecord)",
                            field: "@<TRIPOS>MOLECULE num_bonds (field 2)")
            }
            m.declaredBonds = nb
        }
        // Molecule type, charge type, status bits and comment, as far as they are there.
        let keys = ["mol_type", "charge_type", "status_bits", "comment"]
        var k = 0
        while k < keys.count, let next = lines.peek(), section(next) == nil {
            _ = lines.next()
            let text = lines.string(lines.trimmed(next))
            if !text.isEmpty { m.properties[keys[k]] = text }
            k += 1
        }
        let remaining = lines.bytes.count - lines.position
        m.atoms.reserveCapacity(min(na, remaining / 32 + 1))
        return m
    }

    mutating func readAtom(_ l: Range<Int>, into m: inout Molecule) throws {
        let n = m.atoms.count + m.lonePairs + 1
        guard n <= m.declaredAtoms else {
            throw error("more atom lines than the \(m.declaredAtoms) the counts line declares", field: "@<TRIPOS>ATOM")
        }
        let t = lines.tokens(l, limit: 9)
        guard t.count >= 6 else {
            throw error("atom \(n): \(t.count) fields where at least 6 are needed (atom_id atom_name x y z atom_type)",
                        field: "@<TRIPOS>ATOM")
        }
        guard let id = lines.int(t[0]) else { throw error("atom \(n): atom_id is not a number", field: "@<TRIPOS>ATOM atom_id (field 1)") }
        guard m.index[id] == nil else {
            throw error("atom \(n): atom_id \(id) is used twice", field: "@<TRIPOS>ATOM atom_id (field 1)")
        }
        var xyz = SIMD3<Float>()
        for k in 0..<3 {
            let axis = ["x", "y", "z"][k]
            guard let v = lines.double(t[2 + k]), abs(v) < 1e6 else {
                throw error("atom \(n): \(axis) is not a number in range: '\(lines.string(t[2 + k]).prefix(40))'",
                            field: "@<TRIPOS>ATOM \(axis) (field \(3 + k))")
            }
            xyz[k] = Float(v)
        }
        let type = lines.slice(t[5])
        let atomName = lines.string(t[1])
        if MOL2Parser.isLonePair(type) { m.index[id] = .some(nil); m.lonePairs += 1; return }
        var substID: Int?
        if t.count > 6 {
            guard let s = lines.int(t[6]) else {
                throw error("atom \(n): subst_id is not a number", field: "@<TRIPOS>ATOM subst_id (field 7)")
            }
            substID = s
        }
        let substName = t.count > 7 ? lines.string(t[7]) : nil
        if t.count > 8, lines.double(t[8]) == nil {
            throw error("atom \(n): charge is not a number: '\(lines.string(t[8]).prefix(40))'", field: "@<TRIPOS>ATOM charge (field 9)")
        }
        let element = MOL2Parser.element(type: type) ?? XYZReader.element(lines.slice(t[1])) ?? .unknown
        m.index[id] = m.atoms.count
        m.atoms.append(AtomLine(atom: Atom(name: atomName, element: element, serial: Int32(clamping: id), isHetero: true, position: xyz),
                                substID: substID, substName: substName))
    }

    mutating func readBond(_ l: Range<Int>, into m: inout Molecule) throws {
        m.bondLines += 1
        let k = m.bondLines
        if let declared = m.declaredBonds, k > declared {
            throw error("more bond lines than the \(declared) the counts line declares", field: "@<TRIPOS>BOND")
        }
        let t = lines.tokens(l, limit: 4)
        guard t.count >= 4 else {
            throw error("bond \(k): \(t.count) fields where 4 are needed (bond_id origin_atom_id target_atom_id bond_type)",
                        field: "@<TRIPOS>BOND")
        }
        guard lines.int(t[0]) != nil else { throw error("bond \(k): bond_id is not a number", field: "@<TRIPOS>BOND bond_id (field 1)") }
        var ends: [Int?] = []
        for (f, what) in [(1, "origin_atom_id"), (2, "target_atom_id")] {
            guard let id = lines.int(t[f]) else {
                throw error("bond \(k): \(what) is not a number", field: "@<TRIPOS>BOND \(what) (field \(f + 1))")
            }
            guard let i = m.index[id] else {
                throw error("bond \(k): atom \(id) is not an atom_id of this molecule", field: "@<TRIPOS>BOND \(what) (field \(f + 1))")
            }
            ends.append(i)
        }
        let typeText = lines.string(t[3]).lowercased()
        let order: BondOrder?
        switch typeText {
        case "1": order = .single
        case "2": order = .double
        case "3": order = .triple
        case "ar": order = .aromatic
        case "am": order = .single
        case "du", "un": order = .unknown
        case "nc": order = nil
        default:
            throw error("bond \(k): bond type '\(typeText.prefix(20))' is none of 1, 2, 3, am, ar, du, un, nc",
                        field: "@<TRIPOS>BOND bond_type (field 4)")
        }
        guard let order, let a = ends[0], let b = ends[1] else { return }  // "nc", or a lone pair's bond
        guard a != b else { throw error("bond \(k) joins an atom to itself", field: "@<TRIPOS>BOND target_atom_id (field 3)") }
        m.bonds.append(ModelBond(a: Int32(a), b: Int32(b), order: order))
    }

    /// `subst_id subst_name root_atom [subst_type [dict_type [chain …]]]`: the chain of each substructure.
    mutating func readSubstructure(_ l: Range<Int>, into m: inout Molecule) throws {
        let t = lines.tokens(l, limit: 6)
        guard t.count >= 3 else {
            throw error("\(t.count) fields where at least 3 are needed (subst_id subst_name root_atom)", field: "@<TRIPOS>SUBSTRUCTURE")
        }
        guard let id = lines.int(t[0]) else { throw error("subst_id is not a number", field: "@<TRIPOS>SUBSTRUCTURE subst_id (field 1)") }
        guard t.count >= 6 else { return }
        let chain = lines.string(t[5])
        if !chain.isEmpty, !chain.allSatisfy({ $0 == "*" }), chain.utf8.count <= 4, m.chains.count < 100_000 { m.chains[id] = chain }
    }

    // MARK: - The model

    func build(_ m: Molecule, number: Int) throws -> Model {
        guard m.sawAtomSection || m.declaredAtoms == 0 else {
            throw error("the molecule '\(m.name.prefix(40))' has no @<TRIPOS>ATOM section", field: "@<TRIPOS>ATOM", line: m.headerLine)
        }
        let read = m.index.count
        guard read == m.declaredAtoms else {
            throw error("the molecule '\(m.name.prefix(40))' has \(read) atom lines where its counts line declares \(m.declaredAtoms)",
                        field: "@<TRIPOS>ATOM", line: m.headerLine)
        }
        if let declared = m.declaredBonds, m.bondLines != declared {
            throw error("the molecule '\(m.name.prefix(40))' has \(m.bondLines) bond lines where its counts line declares \(declared)",
                        field: "@<TRIPOS>BOND", line: m.headerLine)
        }
        // Residues in file order: a new one whenever subst_id or subst_name changes.
        struct Run { var chain: String; var name: String; var number: Int32; var start: Int; var end: Int }
        var runs: [Run] = []
        var previous: (Int?, String?)? = nil
        for (i, a) in m.atoms.enumerated() {
            if let p = previous, p.0 == a.substID, p.1 == a.substName, !runs.isEmpty {
                runs[runs.count - 1].end = i + 1
                continue
            }
            previous = (a.substID, a.substName)
            let (name, number) = MOL2Parser.residue(substName: a.substName, substID: a.substID, molecule: m.name)
            let chain = a.substID.flatMap { m.chains[$0] } ?? "A"
            runs.append(Run(chain: chain, name: name, number: number, start: i, end: i + 1))
        }
        // Chains in order of first appearance; a chain that comes back gets its residues moved to it.
        var chainOrder: [String] = []
        var chainRank: [String: Int] = [:]
        for r in runs where chainRank[r.chain] == nil { chainRank[r.chain] = chainOrder.count; chainOrder.append(r.chain) }
        let ordered = runs.enumerated().sorted { (chainRank[$0.element.chain] ?? 0, $0.offset) < (chainRank[$1.element.chain] ?? 0, $1.offset) }
            .map(\.element)
        var model = Model(number: number)
        model.atoms.reserveCapacity(m.atoms.count)
        var newIndex = [Int32](repeating: 0, count: m.atoms.count)
        for r in ordered {
            let start = Int32(model.atoms.count)
            let kind = ResidueKind.of(r.name)
            let standard = kind == .aminoAcid || kind == .nucleotide
            for i in r.start..<r.end {
                newIndex[i] = Int32(model.atoms.count)
                var atom = m.atoms[i].atom
                atom.isHetero = !standard
                model.atoms.append(atom)
            }
            model.residues.append(Residue(name: r.name, number: r.number, atomStart: start, atomEnd: Int32(model.atoms.count)))
            if let last = model.chains.last, last.id == r.chain {
                model.chains[model.chains.count - 1].residueEnd = Int32(model.residues.count)
            } else {
                model.chains.append(Chain(id: r.chain, labelID: r.chain, residueStart: Int32(model.residues.count - 1),
                                          residueEnd: Int32(model.residues.count)))
            }
        }
        model.bonds = m.bonds.map { ModelBond(a: newIndex[Int($0.a)], b: newIndex[Int($0.b)], order: $0.order) }
        return model
    }

    /// "ALA12" → ("ALA", 12); a name without trailing digits keeps `subst_id` as its number; no name
    /// at all takes the molecule's name when that is a short code, else "LIG".
    static func residue(substName: String?, substID: Int?, molecule: String) -> (String, Int32) {
        let fallbackNumber = Int32(clamping: substID ?? 1)
        guard let substName, !substName.isEmpty, !substName.allSatisfy({ $0 == "*" }) else {
            return (SDFParser.residueName(molecule), fallbackNumber)
        }
        let u = Array(substName.utf8)
        var cut = u.count
        while cut > 0, u[cut - 1] >= 0x30, u[cut - 1] <= 0x39 { cut -= 1 }
        // A minus sign before the digits belongs to the number ("GLY-3").
        if cut < u.count, cut > 1, u[cut - 1] == 0x2D { cut -= 1 }
        if cut > 0, cut < u.count, let n = NumberParsing.int(String(decoding: u[cut...], as: UTF8.self)) {
            return (String(decoding: u[..<cut], as: UTF8.self), Int32(n))
        }
        return (String(substName.prefix(16)), fallbackNumber)
    }

    static func isLonePair(_ type: UnsafeBufferPointer<UInt8>) -> Bool {
        type.count == 2 && Element.upper(type[0]) == 0x4C && Element.upper(type[1]) == 0x50  // "LP"
    }

    /// The element of a SYBYL atom type: the symbol before the dot ("C.ar", "N.am", "Cl", "Co.oh");
    /// `Du` (dummy) and the generic `Any`, `Hal`, `Het`, `Hev` are unknown; nil when it is none of these.
    static func element(type: UnsafeBufferPointer<UInt8>) -> Element? {
        var end = 0
        while end < type.count, type[end] != 0x2E { end += 1 }
        let symbol = UnsafeBufferPointer(rebasing: type[0..<end])
        let text = String(decoding: symbol, as: UTF8.self).uppercased()
        if ["DU", "ANY", "HAL", "HET", "HEV"].contains(text) { return .unknown }
        switch symbol.count {
        case 1: return Element.lookup(symbol[0], 0)
        case 2: return Element.lookup(symbol[0], symbol[1])
        default: return nil
        }
    }
}
