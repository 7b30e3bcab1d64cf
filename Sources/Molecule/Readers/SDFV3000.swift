/// The V3000 connection table: `M  V30` lines (a trailing "-" continues one) up to `M  END`, its
/// counts, atom and bond blocks, `M  CHG` lines; SGROUP, COLLECTION and other blocks skipped. Read
/// into the record as the V2000 table is (SDFReader.swift).
extension SDFParser {
    mutating func readV3000() throws {
        enum Block { case none, atom, bond }
        var block = Block.none
        var skipDepth = 0
        var declaredAtoms: Int?, declaredBonds: Int?, countsLine = 0
        var indexOfID: [Int: Int32] = [:]
        var pendingBonds: [(a: Int, b: Int, order: BondOrder, line: Int, number: Int)] = []
        var chargeLines: [(Range<Int>, Int)] = []

        while true {
            guard let l = lines.next() else { throw missingEnd("input ends") }
            if lines.hasPrefix(l, "M  END") { break }
            if lines.equals(lines.trimmed(l), "$$$$") { throw missingEnd("record ends") }
            if lines.hasPrefix(l, "M  CHG") { chargeLines.append((l, lines.lineNumber)); continue }
            guard lines.hasPrefix(l, "M  V30") else { continue }
            let lineNumber = lines.lineNumber

            // The logical line: a trailing "-" continues it on the next "M  V30 " line.
            var text = Array(lines.slice(lines.columns(l, 6, l.count)))
            while let last = text.last(where: { $0 != 0x20 && $0 != 0x09 }), last == 0x2D {
                while let e = text.last, e == 0x20 || e == 0x09 { text.removeLast() }
                text.removeLast()
                guard let c = lines.next(), lines.hasPrefix(c, "M  V30") else {
                    throw error("a line ending in \"-\" is not followed by an M  V30 continuation line",
                                field: "M  V30 continuation")
                }
                text.append(contentsOf: lines.slice(lines.columns(c, 6, c.count)).drop(while: { $0 == 0x20 }))
            }
            let t = SDFParser.v30Tokens(text)
            guard let head = t.first else { continue }
            let keyword = String(decoding: text[head], as: UTF8.self).uppercased()

            func err(_ message: String, _ field: String) -> StructureReadError {
                error(message, field: field, line: lineNumber)
            }
            func int(_ k: Int) -> Int? { k < t.count ? text.withUnsafeBufferPointer { NumberParsing.int(UnsafeBufferPointer(rebasing: $0[t[k]])) } : nil }
            func double(_ k: Int) -> Double? { k < t.count ? text.withUnsafeBufferPointer { NumberParsing.double(UnsafeBufferPointer(rebasing: $0[t[k]])) } : nil }
            func word(_ k: Int) -> String { k < t.count ? String(decoding: text[t[k]], as: UTF8.self).uppercased() : "" }

            if keyword == "BEGIN" {
                if skipDepth > 0 { skipDepth += 1; continue }
                switch word(1) {
                case "CTAB": break
                case "ATOM": block = .atom
                case "BOND": block = .bond
                default: skipDepth = 1  // SGROUP, COLLECTION, RGROUP, TEMPLATE, …
                }
                continue
            }
            if keyword == "END" {
                if skipDepth > 0 { skipDepth -= 1 } else { block = .none }
                continue
            }
            if skipDepth > 0 { continue }
            if keyword == "COUNTS" {
                guard let na = int(1), na >= 0, na <= MoleculeTextLimits.maxAtomsPerRecord else {
                    throw err("atom count is not a number in 0...\(MoleculeTextLimits.maxAtomsPerRecord)", "M  V30 COUNTS atoms")
                }
                guard let nb = int(2), nb >= 0, nb <= MoleculeTextLimits.maxBondsPerRecord else {
                    throw err("bond count is not a number in 0...\(MoleculeTextLimits.maxBondsPerRecord)", "M  V30 COUNTS bonds")
                }
                declaredAtoms = na; declaredBonds = nb; countsLine = lineNumber
                let remaining = lines.bytes.count - lines.position
                atoms.reserveCapacity(min(na, remaining / 32 + 1))
                continue
            }
            switch block {
            case .none: continue
            case .atom:
                // index type x y z aamap [KEY=value …]; a "NOT [list]" type takes two fields.
                var k = 2
                if word(1) == "NOT" { k = 3 }
                guard let id = int(0) else { throw err("atom index is not a number", "M  V30 atom index") }
                guard t.count > k + 2 else { throw err("atom \(id): fewer than 5 fields", "M  V30 atom") }
                guard let x = double(k) else { throw err("atom \(id): x is not a number", "M  V30 atom x") }
                guard let y = double(k + 1) else { throw err("atom \(id): y is not a number", "M  V30 atom y") }
                guard let z = double(k + 2) else { throw err("atom \(id): z is not a number", "M  V30 atom z") }
                guard indexOfID[id] == nil else { throw err("atom index \(id) appears twice", "M  V30 atom index") }
                guard atoms.count < MoleculeTextLimits.maxAtomsPerRecord else {
                    throw err("more than \(MoleculeTextLimits.maxAtomsPerRecord) atoms", "M  V30 atom")
                }
                var charge: Int8 = 0
                var p = k + 4
                while p < t.count {
                    let f = text[t[p]]
                    if f.count > 4, f.prefix(4).elementsEqual("CHG=".utf8) {
                        let v = text.withUnsafeBufferPointer {
                            NumberParsing.int(UnsafeBufferPointer(rebasing: $0[(t[p].lowerBound + 4)..<t[p].upperBound]))
                        }
                        guard let v else { throw err("atom \(id): CHG is not a number", "M  V30 atom CHG") }
                        charge = Int8(clamping: v)
                    }
                    p += 1
                }
                indexOfID[id] = Int32(atoms.count)
                let typeRange = t[1]
                let element = k == 3 ? Element.unknown
                    : text.withUnsafeBufferPointer { SDFParser.element(UnsafeBufferPointer(rebasing: $0[typeRange])) }
                let pos = SIMD3<Float>(Float(x), Float(y), Float(z))
                guard pos.x.isFinite, pos.y.isFinite, pos.z.isFinite else {
                    throw err("atom \(id): coordinate out of range", "M  V30 atom coordinates")
                }
                let i = atoms.count
                atoms.append(Atom(name: "\(element.symbol)\(i + 1)", element: element, serial: Int32(i + 1),
                                  formalCharge: charge, isHetero: true, position: pos))
            case .bond:
                // index type atom1 atom2 [KEY=value …]
                guard let type = int(1) else { throw err("bond type is not a number", "M  V30 bond type") }
                guard let a = int(2) else { throw err("first atom is not a number", "M  V30 bond atom1") }
                guard let b = int(3) else { throw err("second atom is not a number", "M  V30 bond atom2") }
                guard pendingBonds.count < MoleculeTextLimits.maxBondsPerRecord else {
                    throw err("more than \(MoleculeTextLimits.maxBondsPerRecord) bonds", "M  V30 bond")
                }
                pendingBonds.append((a, b, SDFParser.order(type), lineNumber, pendingBonds.count + 1))
            }
        }

        for (a, b, order, line, number) in pendingBonds {
            guard let ia = indexOfID[a] else {
                throw error("bond \(number): no atom has index \(a)", field: "M  V30 bond atom1", line: line)
            }
            guard let ib = indexOfID[b] else {
                throw error("bond \(number): no atom has index \(b)", field: "M  V30 bond atom2", line: line)
            }
            guard ia != ib else { throw error("bond \(number) joins atom \(a) to itself", field: "M  V30 bond atom2", line: line) }
            bonds.append(ModelBond(a: ia, b: ib, order: order))
        }
        if let declaredAtoms, declaredAtoms != atoms.count {
            throw error("COUNTS declares \(declaredAtoms) atoms but the ATOM block holds \(atoms.count)",
                        field: "M  V30 COUNTS atoms", line: countsLine)
        }
        if let declaredBonds, declaredBonds != bonds.count {
            throw error("COUNTS declares \(declaredBonds) bonds but the BOND block holds \(bonds.count)",
                        field: "M  V30 COUNTS bonds", line: countsLine)
        }
        for (l, n) in chargeLines {
            do { try applyChargeLine(l) } catch var e as StructureReadError { e.line = n; throw e }
        }
    }

    /// Fields of a V3000 line: white space separates them except inside double quotes and parentheses.
    static func v30Tokens(_ c: [UInt8]) -> [Range<Int>] {
        var out: [Range<Int>] = []
        var i = 0
        let n = c.count
        while i < n {
            while i < n, c[i] == 0x20 || c[i] == 0x09 { i += 1 }
            guard i < n else { break }
            let start = i
            var depth = 0, quoted = false
            while i < n {
                let b = c[i]
                if quoted {
                    if b == 0x22 { quoted = false }
                } else if b == 0x22 {
                    quoted = true
                } else if b == 0x28 {
                    depth += 1
                } else if b == 0x29 {
                    if depth > 0 { depth -= 1 }
                } else if (b == 0x20 || b == 0x09) && depth == 0 {
                    break
                }
                i += 1
            }
            out.append(start..<i)
        }
        return out
    }
}
