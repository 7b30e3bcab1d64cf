/// Reads XYZ files, one model per frame: an atom-count line, a comment line, then one line per atom,
/// `El x y z`, with the element as a symbol ("C", "Cl", or a label such as "C12" or "OW") or an
/// atomic number. Extra columns (extended XYZ) are ignored; an extended-XYZ `Properties=` key in the
/// comment line says where the species and position columns are when they are not first.
///
/// Each frame holds one chain "A" with one residue "MOL" numbered 1; atoms are named element + 1-based
/// index ("C1", "H2", …), are HETATMs, and have serials 1…n. The first frame's comment is the title;
/// each frame's comment is also under "title" in `Structure.recordProperties`.
enum XYZReader {
    static func read(_ bytes: UnsafeBufferPointer<UInt8>, fileName: String, limits: ReadLimits = .standard) throws -> Structure {
        var lines = MoleculeTextLines(bytes)
        var structure = Structure()
        structure.sourceFormat = .xyz

        func error(_ message: String, field: String) -> StructureReadError {
            StructureReadError(file: fileName, line: max(1, lines.lineNumber), field: field, message: message)
        }
        var atomsRead = 0

        while !lines.restIsBlank {
            // Blank lines between frames are tolerated.
            var countLine = 0..<0
            while let l = lines.next() {
                countLine = l
                if !lines.isBlank(l) { break }
            }
            let frame = structure.models.count + 1
            if let why = limits.refusesModel(after: structure.models.count) {
                var e = error("frame \(frame): \(why)", field: "atom count line")
                e.isTooLarge = true
                throw e
            }
            guard let first = lines.tokens(countLine, limit: 1).first, let n = lines.int(first) else {
                throw error("frame \(frame): the atom count is not a number", field: "atom count line")
            }
            guard n >= 0, n <= MoleculeTextLimits.maxAtomsPerRecord else {
                throw error("frame \(frame): atom count \(n) is out of range 0...\(MoleculeTextLimits.maxAtomsPerRecord)",
                            field: "atom count line")
            }
            if let why = limits.refusesAtoms(n, after: atomsRead) {
                var e = error("frame \(frame): \(n) atoms: \(why)", field: "atom count line")
                e.isTooLarge = true
                throw e
            }
            atomsRead += n
            guard let commentLine = lines.next() else {
                throw error("frame \(frame): input ends before the comment line", field: "comment line")
            }
            let comment = lines.string(lines.trimmed(commentLine))
            let columns = XYZReader.columns(comment)

            var atoms = AtomTable()
            atoms.reserveCapacity(min(n, (lines.bytes.count - lines.position) / 8 + 1))
            let needed = max(columns.species, columns.x + 2) + 1
            for i in 0..<n {
                guard let l = lines.next() else {
                    throw error("frame \(frame): input ends after \(i) of \(n) atoms", field: "atom lines")
                }
                let t = lines.tokens(l, limit: needed)
                guard t.count >= needed else {
                    throw error("frame \(frame), atom \(i + 1): \(t.count) fields where \(needed) are needed",
                                field: "atom line")
                }
                guard let element = XYZReader.element(lines.slice(t[columns.species])) else {
                    throw error("frame \(frame), atom \(i + 1): not an element symbol or atomic number 0...118",
                                field: "atom line element (field \(columns.species + 1))")
                }
                var xyz = SIMD3<Float>()
                for k in 0..<3 {
                    guard let v = lines.double(t[columns.x + k]) else {
                        throw error("frame \(frame), atom \(i + 1): \(["x", "y", "z"][k]) is not a number",
                                    field: "atom line \(["x", "y", "z"][k]) (field \(columns.x + k + 1))")
                    }
                    xyz[k] = Float(v)
                    guard xyz[k].isFinite else {
                        throw error("frame \(frame), atom \(i + 1): coordinate out of range",
                                    field: "atom line \(["x", "y", "z"][k]) (field \(columns.x + k + 1))")
                    }
                }
                atoms.append(Atom(name: "\(element.symbol)\(i + 1)", element: element, serial: Int32(i + 1),
                                  isHetero: true, position: xyz))
            }

            var model = Model(number: frame)
            if n > 0 {
                model.residues = [Residue(name: "MOL", number: 1, atomStart: 0, atomEnd: Int32(n))]
                model.chains = [Chain(id: "A", labelID: "A", residueStart: 0, residueEnd: 1)]
            }
            model.atoms = atoms
            structure.models.append(model)
            structure.recordProperties.append(["title": comment])
            if frame == 1 { structure.metadata.title = comment }
        }
        guard !structure.models.isEmpty else {
            throw StructureReadError(file: fileName, line: 1, field: "atom count line", message: "no frame (empty input)")
        }
        return structure
    }

    /// Element of a species field: a symbol, a symbol followed by a label ("C12", "OW", "Ca2+"), or an
    /// atomic number. nil when it is none of these.
    static func element(_ s: UnsafeBufferPointer<UInt8>) -> Element? {
        guard let c0 = s.first else { return nil }
        if c0 >= 0x30 && c0 <= 0x39 {
            guard let z = NumberParsing.int(s), z >= 0, z < 119 else { return nil }
            return Element(atomicNumber: UInt8(z))
        }
        func isLetter(_ b: UInt8) -> Bool { (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) }
        guard isLetter(c0) else { return nil }
        let c1: UInt8 = s.count > 1 && isLetter(s[1]) ? s[1] : 0
        if c1 != 0 {
            // "Cl", "CL", "Cl1" are chlorine; labels such as "OW" or "HW2" fall back to the first letter.
            let thirdIsLetter = s.count > 2 && isLetter(s[2])
            if !thirdIsLetter, let e = Element.lookup(c0, c1) { return e }
        }
        return Element.lookup(c0, 0) ?? .unknown
    }

    /// Field positions of the species and of x (y, z follow) in an atom line.
    struct Columns { var species = 0; var x = 1 }

    /// Reads extended XYZ's `Properties=species:S:1:pos:R:3:…` from a comment line; default columns otherwise.
    static func columns(_ comment: String) -> Columns {
        let chars = Array(comment.utf8)
        let key = Array("properties=".utf8)
        guard chars.count > key.count else { return Columns() }
        var start: Int?
        var i = 0
        while i + key.count <= chars.count {
            let atWordStart = i == 0 || chars[i - 1] == 0x20 || chars[i - 1] == 0x09
            if atWordStart, (0..<key.count).allSatisfy({ chars[i + $0] | 0x20 == key[$0] | 0x20 }) {
                start = i + key.count
                break
            }
            i += 1
        }
        guard var p = start else { return Columns() }
        var end = chars.count
        if p < chars.count, chars[p] == 0x22 || chars[p] == 0x27 {
            let q = chars[p]
            p += 1
            end = chars[p...].firstIndex(of: q) ?? chars.count
        } else {
            end = chars[p...].firstIndex(where: { $0 == 0x20 || $0 == 0x09 }) ?? chars.count
        }
        let parts = chars[p..<end].split(separator: 0x3A, omittingEmptySubsequences: false)  // ":"
        guard parts.count >= 3, parts.count % 3 == 0 else { return Columns() }
        var column = 0
        var species: Int?, x: Int?
        for k in stride(from: 0, to: parts.count, by: 3) {
            let name = String(decoding: parts[k], as: UTF8.self).lowercased()
            guard let width = NumberParsing.int(String(decoding: parts[k + 2], as: UTF8.self)),
                  width >= 1, width <= 1000 else { return Columns() }
            if name == "species" || name == "element" || name == "z", species == nil { species = column }
            if name == "pos", width == 3 { x = column }
            column += width
        }
        guard let species, let x else { return Columns() }
        return Columns(species: species, x: x)
    }
}
