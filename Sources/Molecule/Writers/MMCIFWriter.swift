import TextOutput

/// Writes a structure as PDBx/mmCIF: `data_ID`, `_entry`, `_struct.title`, `_exptl.method`, the
/// resolution (`_refine.ls_d_res_high`, and `_em_3d_reconstruction.resolution` for electron
/// microscopy), `_entity`, and the `_atom_site` loop with every per-atom value the model holds.
/// Values are quoted as CIF 1.1 requires; empty values are written as `.`; free text (title, method,
/// entity description) is folded to ASCII, as the PDBx dictionary's `line` and `text` types are.
enum MMCIFWriter {
    static func writeBytes(_ s: Structure) -> [UInt8] {
        let atomTotal = s.models.reduce(0) { $0 + $1.atoms.count }
        var out = TextBuffer(capacity: atomTotal * 100 + 4096)
        let md = s.metadata

        // Block name: the id without white space (CIF block names cannot hold any).
        let blockName = md.id.unicodeScalars.filter { $0.value > 0x20 && $0.value < 0x7F }
        out.text("data_")
        out.text(blockName.isEmpty ? "unnamed" : String(blockName))
        out.text("\n#\n")

        out.text("_entry.id ")
        out.appendCIFValue(md.id)
        out.text("\n#\n")

        if !md.title.isEmpty {
            out.text("_struct.entry_id ")
            out.appendCIFValue(md.id)
            out.text("\n_struct.title ")
            out.appendCIFValue(ASCIIText.fold(md.title))
            out.text("\n#\n")
        }

        let methods = md.experimentalMethods.filter { !$0.isEmpty }
        if methods.count == 1 {
            out.text("_exptl.entry_id ")
            out.appendCIFValue(md.id)
            out.text("\n_exptl.method ")
            out.appendCIFValue(ASCIIText.fold(methods[0]))
            out.text("\n#\n")
        } else if methods.count > 1 {
            out.text("loop_\n_exptl.entry_id\n_exptl.method\n")
            for m in methods {
                out.appendCIFValue(md.id)
                out.text(" ")
                out.appendCIFValue(ASCIIText.fold(m))
                out.text("\n")
            }
            out.text("#\n")
        }

        if let r = md.resolution, r.isFinite {
            out.text("_refine.entry_id ")
            out.appendCIFValue(md.id)
            out.text("\n_refine.pdbx_refine_id ")
            out.appendCIFValue(ASCIIText.fold(methods.first ?? ""))
            out.text("\n_refine.ls_d_res_high ")
            out.appendCIFNumber(r)
            out.text("\n#\n")
            if methods.contains(where: { $0.uppercased().contains("MICROSCOPY") }) {
                out.text("_em_3d_reconstruction.entry_id ")
                out.appendCIFValue(md.id)
                out.text("\n_em_3d_reconstruction.id 1\n_em_3d_reconstruction.resolution ")
                out.appendCIFNumber(r)
                out.text("\n#\n")
            }
        }

        if !s.entities.isEmpty {
            out.text("loop_\n_entity.id\n_entity.type\n_entity.pdbx_description\n")
            for e in s.entities {
                out.appendCIFValue(e.id)
                out.text(" ")
                out.appendCIFValue(e.kind.rawValue)
                out.text(" ")
                out.appendCIFValue(ASCIIText.fold(e.description), emptyAs: "?")
                out.text("\n")
            }
            out.text("#\n")
        }

        if atomTotal > 0 { writeAtomSite(s, into: &out) }
        return out.finish()
    }

    static let atomSiteFields = [
        "group_PDB", "id", "type_symbol", "label_atom_id", "label_alt_id", "label_comp_id", "label_asym_id",
        "label_entity_id", "label_seq_id", "pdbx_PDB_ins_code", "Cartn_x", "Cartn_y", "Cartn_z", "occupancy",
        "B_iso_or_equiv", "pdbx_formal_charge", "auth_seq_id", "auth_comp_id", "auth_asym_id", "auth_atom_id",
        "pdbx_PDB_model_num",
    ]

    /// `_atom_site.type_symbol` values by atomic number: upper-case symbols, "X" for unknown.
    static let typeSymbols: [[UInt8]] = ElementData.symbols.map { Array($0.uppercased().utf8) }

    static func writeAtomSite(_ s: Structure, into out: inout TextBuffer) {
        out.text("loop_\n")
        for f in atomSiteFields { out.text("_atom_site."); out.text(f); out.text("\n") }

        for model in s.models {
            let atoms = model.atoms
            let n = atoms.count
            guard n > 0 else { continue }
            var modelNumber = TextBuffer(capacity: 16)
            modelNumber.byte(0x20)
            modelNumber.int(model.number)
            modelNumber.byte(0x0A)
            let useResidueAsym = model.residueLabelAsym.count == model.residues.count
            // Values shared by a residue's atoms, encoded once: " comp asym entity seq ins" and
            // " auth_seq auth_comp auth_asym".
            var labelPart = TextBuffer(), authPart = TextBuffer(), name = TextBuffer()

            func setResidue(_ residue: Residue?, chain: Chain?, entityID: String, labelAsym: String) {
                labelPart.removeAll()
                authPart.removeAll()
                labelPart.byte(0x20)
                labelPart.appendCIFValue(residue?.name ?? "")
                labelPart.byte(0x20)
                labelPart.appendCIFValue(labelAsym)
                labelPart.byte(0x20)
                labelPart.appendCIFValue(entityID, emptyAs: "?")
                labelPart.byte(0x20)
                if let q = residue?.sequenceIndex { labelPart.int(Int(q)) } else { labelPart.byte(0x2E) }
                labelPart.byte(0x20)
                if let r = residue, r.insertionCode > 0x20, r.insertionCode < 0x7F {
                    labelPart.appendCIFValue(String(UnicodeScalar(r.insertionCode)))
                } else {
                    labelPart.byte(0x3F)
                }
                authPart.byte(0x20)
                if let r = residue { authPart.int(Int(r.number)) } else { authPart.byte(0x3F) }
                authPart.byte(0x20)
                authPart.appendCIFValue(residue?.name ?? "")
                authPart.byte(0x20)
                authPart.appendCIFValue(chain?.id ?? "")
            }

            func row(_ a: Int) {
                out.text(atoms.isHetero[a] ? "HETATM " as StaticString : "ATOM " as StaticString)
                out.int(Int(atoms.serials[a]))
                out.byte(0x20)
                let z = Int(atoms.elements[a].atomicNumber)
                out.text(z < typeSymbols.count ? typeSymbols[z] : [0x58])
                name.removeAll()
                name.appendCIFValue(atoms.names[a])
                out.byte(0x20)
                out.text(name)
                out.byte(0x20)
                let alt = atoms.altLocs[a]
                if alt > 0x20 && alt < 0x7F {
                    out.appendCIFValue(String(UnicodeScalar(alt)))
                } else {
                    out.byte(0x2E)
                }
                out.text(labelPart)
                let p = atoms.positions[a]
                out.byte(0x20)
                out.appendCoordinate(p.x)
                out.byte(0x20)
                out.appendCoordinate(p.y)
                out.byte(0x20)
                out.appendCoordinate(p.z)
                out.byte(0x20)
                out.compact(atoms.occupancies[a])
                out.byte(0x20)
                out.compact(atoms.bFactors[a])
                out.byte(0x20)
                out.int(Int(atoms.formalCharges[a]))
                out.text(authPart)
                out.byte(0x20)
                out.text(name)
                out.text(modelNumber)
            }

            if model.chains.isEmpty || model.residues.isEmpty {
                setResidue(nil, chain: nil, entityID: "", labelAsym: "")
                for a in 0..<n { row(a) }
                continue
            }
            for chain in model.chains {
                let rs = PDBWriter.clamp(chain.residueStart, chain.residueEnd, model.residues.count)
                let polymerEntity = chain.entityIndex.flatMap { $0 >= 0 && $0 < s.entities.count ? $0 : nil }
                let polymerChain = polymerEntity.map { s.entities[$0].kind == .polymer } ?? false
                for r in rs {
                    let res = model.residues[r]
                    let labelAsym: String
                    if useResidueAsym, !model.residueLabelAsym[r].isEmpty { labelAsym = model.residueLabelAsym[r] }
                    else if !chain.labelID.isEmpty { labelAsym = chain.labelID }
                    else { labelAsym = chain.id }
                    let entityID = entityOf(res, chain: chain, polymerEntity: polymerEntity,
                                            polymerChain: polymerChain, atoms: atoms, entities: s.entities)
                    setResidue(res, chain: chain, entityID: entityID, labelAsym: labelAsym)
                    for a in PDBWriter.clamp(res.atomStart, res.atomEnd, n) { row(a) }
                }
            }
        }
        out.text("#\n")
    }

    /// The entity id of a residue: the chain's polymer entity for polymer residues, else the
    /// non-polymer (or water) entity of that component in this chain; "" when none is known.
    static func entityOf(_ res: Residue, chain: Chain, polymerEntity: Int?, polymerChain: Bool,
                         atoms: AtomTable, entities: [Entity]) -> String {
        if let e = polymerEntity, polymerChain, PDBWriter.isPolymer(res, atoms, polymerChain: true) {
            return entities[e].id
        }
        var fallback: String?
        for e in entities where e.kind != .polymer {
            let matches = e.monomers.contains(res.name) || (e.kind == .water && res.isWater)
            guard matches else { continue }
            if e.chainIDs.isEmpty || e.chainIDs.contains(chain.id) { return e.id }
            if fallback == nil { fallback = e.id }
        }
        if let fallback { return fallback }
        // A chain whose own entity is not a polymer: that entity.
        if let e = polymerEntity, !polymerChain { return entities[e].id }
        return ""
    }
}

extension TextBuffer {
    /// A CIF value, quoted when it must be: empty as `emptyAs` (".") and values with white space,
    /// a leading special character, `.`/`?` themselves, or reserved words in quotes or a text field.
    mutating func appendCIFValue(_ s: String, emptyAs: StaticString = ".") {
        if s.isEmpty { text(emptyAs); return }
        switch CIFQuoting.style(s) {
        case .bare: text(s)
        case .single: byte(0x27); text(s); byte(0x27)
        case .double: byte(0x22); text(s); byte(0x22)
        case .textField:
            // A text field starts a line.
            if lastByte != 0x0A { byte(0x0A) }
            byte(0x3B)  // ";"
            // A line starting with ";" would end the field: such lines get a leading space.
            var atLineStart = false
            for c in s.utf8 {
                if atLineStart && c == 0x3B { byte(0x20) }
                byte(c)
                atLineStart = c == 0x0A || c == 0x0D
            }
            text("\n;\n" as StaticString)
        }
    }

    @inline(__always) mutating func appendCoordinate(_ c: Float) {
        if c.isFinite { printf(Double(c), decimals: 3) } else { byte(0x3F) }
    }

    /// A number in the shortest form that reads back the same ("2.0", "1.74").
    mutating func appendCIFNumber(_ v: Double) {
        guard v.isFinite else { byte(0x3F); return }
        text(String(v))
    }
}

enum CIFQuoting {
    enum Style: Equatable { case bare, single, double, textField }

    static func style(_ s: String) -> Style {
        let u = s.utf8
        guard let first = u.first else { return .single }
        var needsQuotes = false
        var hasNewline = false
        switch first {
        case 0x5F, 0x23, 0x24, 0x27, 0x22, 0x3B, 0x5B, 0x5D: needsQuotes = true  // _ # $ ' " ; [ ]
        default: break
        }
        if u.count == 1 && (first == 0x2E || first == 0x3F) { needsQuotes = true }  // "." "?"
        for b in u {
            if b == 0x0A || b == 0x0D { hasNewline = true; break }
            // White space, and bytes outside printable ASCII, which bare values cannot hold.
            if b <= 0x20 || b >= 0x7F { needsQuotes = true }
        }
        if hasNewline { return .textField }
        // Reserved words, and words starting with them, which parsers take for the keyword.
        if !needsQuotes, u.count >= 5, let lastOfPrefix = u.firstIndex(of: 0x5F) {  // "_"
            switch first | 0x20 {
            case 0x64, 0x73, 0x6C, 0x67:  // d s l g
                let word = String(decoding: u[u.startIndex..<lastOfPrefix], as: UTF8.self).lowercased()
                needsQuotes = ["data", "save", "loop", "stop", "global"].contains(word)
            default: break
            }
        }
        guard needsQuotes else { return .bare }
        if canQuote(u, with: 0x27) { return .single }
        if canQuote(u, with: 0x22) { return .double }
        return .textField
    }

    /// A quote character inside a quoted value must not be followed by white space (which would end
    /// the value), nor by "#" (which some parsers also take as the end), nor end it.
    static func canQuote(_ u: String.UTF8View, with q: UInt8) -> Bool {
        var previousIsQuote = false
        for b in u {
            if previousIsQuote && (b == 0x20 || b == 0x09 || b == 0x23) { return false }
            previousIsQuote = b == q
        }
        return !previousIsQuote
    }
}
