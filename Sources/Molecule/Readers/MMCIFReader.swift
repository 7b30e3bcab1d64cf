/// Interprets a PDBx/mmCIF data block (from text CIF or BinaryCIF) as a `Structure`.
enum MMCIFReader {
    /// The categories this reader uses (BinaryCIF decoding skips the others).
    static let categoriesRead: Set<String> = [
        "atom_site", "entry", "struct", "struct_keywords", "pdbx_database_status", "exptl", "refine", "reflns",
        "em_3d_reconstruction", "citation", "citation_author", "audit_author", "entity_src_gen", "entity_src_nat",
        "pdbx_entity_src_syn", "entity", "entity_poly", "entity_poly_seq", "struct_conf", "struct_sheet_range",
        "struct_conn", "pdbx_struct_oper_list", "pdbx_struct_assembly", "pdbx_struct_assembly_gen", "chem_comp", "cell", "symmetry",
    ]

    static func read(_ block: CIFBlock, fileName: String, format: StructureFormat, limits: ReadLimits = .standard) throws -> Structure {
        var s = Structure()
        s.sourceFormat = format
        guard let atomSite = block["atom_site"] else {
            throw StructureReadError(file: fileName, field: "_atom_site", message: "no _atom_site category: the file has no coordinates")
        }
        s.models = try readAtoms(atomSite, fileName: fileName, limits: limits)
        readMetadata(block, into: &s)
        readEntities(block, into: &s)
        readSecondaryStructure(block, into: &s)
        readConnections(block, into: &s)
        try readAssemblies(block, into: &s, fileName: fileName)
        return s
    }

    // MARK: atoms

    static func readAtoms(_ cat: CIFCategory, fileName: String, limits: ReadLimits = .standard) throws -> [Model] {
        func col(_ names: String...) -> CIFColumn? {
            for n in names { if let c = cat[n] { return c } }
            return nil
        }
        func required(_ name: String) throws -> CIFColumn {
            guard let c = cat[name] else {
                throw StructureReadError(file: fileName, field: "_atom_site.\(name)", message: "required column is missing")
            }
            return c
        }
        let xs = try required("cartn_x"), ys = try required("cartn_y"), zs = try required("cartn_z")
        guard let atomName = col("auth_atom_id", "label_atom_id") else {
            throw StructureReadError(file: fileName, field: "_atom_site.label_atom_id", message: "required column is missing")
        }
        guard let resName = col("auth_comp_id", "label_comp_id") else {
            throw StructureReadError(file: fileName, field: "_atom_site.label_comp_id", message: "required column is missing")
        }
        let chain = col("auth_asym_id", "label_asym_id")
        let labelAsym = col("label_asym_id")
        let seqNum = col("auth_seq_id", "label_seq_id")
        let labelSeq = col("label_seq_id")
        let icode = col("pdbx_pdb_ins_code")
        let group = col("group_pdb")
        let serial = col("id")
        let element = col("type_symbol")
        let altID = col("label_alt_id")
        let occupancy = col("occupancy")
        let bIso = col("b_iso_or_equiv")
        let charge = col("pdbx_formal_charge")
        let modelNum = col("pdbx_pdb_model_num")

        let n = cat.rowCount
        for (name, column) in cat.columns where column.count != n {
            throw StructureReadError(file: fileName, field: "_atom_site.\(name)", message: "has \(column.count) values for \(n) rows")
        }
        func fail(_ row: Int, _ field: String, _ message: String) -> StructureReadError {
            var line: Int? = nil
            if case .text(let t) = xs.storage {
                let start = Int(t.starts.starts[t.firstToken + row * t.stride])
                line = t.source.bytes.withUnsafeBufferPointer { CIFParser.lineNumber($0, at: start) }
            }
            return StructureReadError(file: fileName, line: line, field: "_atom_site.\(field)", message: "row \(row + 1): \(message)")
        }
        // Decode whole columns first; the per-atom loop then reads plain arrays.
        func coordinates(_ c: CIFColumn, _ field: String) throws -> [Double] {
            let (values, invalid) = c.allDoubles()
            if let invalid { throw fail(invalid, field, "not a number") }
            if let bad = values.firstIndex(where: { !(abs($0) < 1e6) }) {
                throw fail(bad, field, values[bad].isNaN ? "missing coordinate" : "coordinate out of range")
            }
            return values
        }
        let x = try coordinates(xs, "Cartn_x"), y = try coordinates(ys, "Cartn_y"), z = try coordinates(zs, "Cartn_z")
        let seq = seqNum?.allInts(missing: 0)
        if let bad = seq?.invalidRow { throw fail(bad, "auth_seq_id", "residue number is not an integer in range") }
        let numbers = seq?.values ?? [Int32](repeating: 0, count: n)
        let sequenceIndices = labelSeq?.allInts().values
        let models = modelNum?.allInts(missing: 1).values
        let serials = serial?.allInts(missing: 0).values
        let charges = charge?.allInts(missing: 0).values
        let occupancies = occupancy?.allDoubles().values
        let bs = bIso?.allDoubles().values
        let names = atomName.allStrings()
        let elementSymbols = element?.allStrings()
        let chainKeys = chain?.allKeys(), resKeys = resName.allKeys(), asymKeys = labelAsym?.allKeys()
        let insertionCodes = icode?.allSingleBytes(), altLocs = altID?.allSingleBytes()
        let hetero: [Bool]? = group.map { g in g.allKeys().map { $0 == CIFColumn.hetatmKey } }

        if let why = limits.refusesAtoms(n, after: 0) {
            throw StructureReadError(file: fileName, field: "_atom_site", message: "\(n) rows: \(why)", isTooLarge: true)
        }
        var builder = StructureBuilder(reserveAtoms: n, keepsLabelAsym: true, limits: limits)
        var currentModel = Int32.min
        var elementCache: [String: Element] = [:]
        for row in 0..<n {
            let m = models?[row] ?? 1
            if m != currentModel {
                currentModel = m
                builder.beginModel(Int(m))
            }
            let seqIndex = sequenceIndices.flatMap { $0[row] == .min ? nil : $0[row] }
            builder.residue(chainKey: chainKeys?[row] ?? .empty, chainName: chain?.string(row) ?? "",
                            nameKey: resKeys[row], name: resName.string(row) ?? "",
                            number: numbers[row], insertionCode: insertionCodes?[row] ?? 0,
                            labelAsymKey: asymKeys?[row] ?? .empty, labelAsym: labelAsym?.string(row) ?? "",
                            sequenceIndex: seqIndex)
            let name = names[row]
            var el = Element.unknown
            if let symbol = elementSymbols?[row] {
                if let cached = elementCache[symbol] { el = cached } else {
                    el = Element(symbol: symbol) ?? .unknown
                    elementCache[symbol] = el
                }
            }
            if el == .unknown, let first = name.utf8.first { el = Element.lookup(first, 0) ?? .unknown }
            builder.addAtom(Atom(
                name: name, element: el, serial: serials?[row] ?? Int32(clamping: row + 1), altLoc: altLocs?[row] ?? 0,
                occupancy: Float(occupancies.map { $0[row].isNaN ? 1 : $0[row] } ?? 1),
                bFactor: Float(bs.map { $0[row].isNaN ? 0 : $0[row] } ?? 0),
                formalCharge: Int8(clamping: charges?[row] ?? 0), isHetero: hetero?[row] ?? false,
                position: SIMD3(Float(x[row]), Float(y[row]), Float(z[row]))))
            if let why = builder.refusal {
                var error = fail(row, "", why)
                error.field = "_atom_site"
                error.isTooLarge = true
                throw error
            }
        }
        return builder.finish()
    }

    // MARK: metadata

    static func first(_ block: CIFBlock, _ category: String, _ field: String) -> String? {
        guard let c = block[category]?[field], c.count > 0 else { return nil }
        return c.string(0)
    }

    static func all(_ block: CIFBlock, _ category: String, _ field: String) -> [String] {
        guard let c = block[category]?[field] else { return [] }
        return (0..<c.count).compactMap { c.string($0) }
    }

    static func readMetadata(_ block: CIFBlock, into s: inout Structure) {
        var md = Metadata()
        md.id = first(block, "entry", "id") ?? block.name
        md.title = (first(block, "struct", "title") ?? "").collapsingSpaces
        md.classification = first(block, "struct_keywords", "pdbx_keywords") ?? ""
        md.keywords = (first(block, "struct_keywords", "text") ?? "").split(separator: ",").map { String($0).trimmingSpaces }.filter { !$0.isEmpty }
        md.depositionDate = first(block, "pdbx_database_status", "recvd_initial_deposition_date") ?? ""
        md.experimentalMethods = all(block, "exptl", "method")
        if let comps = block["chem_comp"], let ids = comps["id"], let names = comps["name"] {
            for row in 0..<min(comps.rowCount, 10_000) {
                if let id = ids.string(row), let name = names.string(row)?.collapsingSpaces, !name.isEmpty { md.componentNames[id] = name }
            }
        }
        md.resolution = [("refine", "ls_d_res_high"), ("reflns", "d_resolution_high"), ("em_3d_reconstruction", "resolution")]
            .lazy.compactMap { block[$0.0]?[$0.1]?.double(0) }.first
        md.authors = all(block, "audit_author", "name")
        // The crystal's cell, as CRYST1 gives it (the 1 Å placeholder of NMR and EM entries is no cell).
        let lengths = ["length_a", "length_b", "length_c", "angle_alpha", "angle_beta", "angle_gamma"].map { block["cell"]?[$0]?.double(0) }
        if let a = lengths[0], let b = lengths[1], let c = lengths[2], !(a == 1 && b == 1 && c == 1) {
            let cell = UnitCell(a: a, b: b, c: c, alpha: lengths[3] ?? 90, beta: lengths[4] ?? 90, gamma: lengths[5] ?? 90)
            if cell.problem == nil {
                md.cell = cell
                md.spaceGroup = first(block, "symmetry", "space_group_name_h-m") ?? ""
            }
        }
        if let cit = block["citation"] {
            var row = 0
            if let ids = cit["id"] { row = (0..<cit.rowCount).first { ids.string($0) == "primary" } ?? 0 }
            var c = Citation()
            c.title = (cit["title"]?.string(row) ?? "").collapsingSpaces
            c.journal = cit["journal_abbrev"]?.string(row) ?? ""
            c.volume = cit["journal_volume"]?.string(row) ?? ""
            c.firstPage = cit["page_first"]?.string(row) ?? ""
            c.year = cit["year"]?.int(row)
            c.doi = cit["pdbx_database_id_doi"]?.string(row) ?? ""
            c.pubMedID = cit["pdbx_database_id_pubmed"]?.string(row) ?? ""
            let citID = cit["id"]?.string(row)
            if let ca = block["citation_author"], let names = ca["name"] {
                let ids = ca["citation_id"]
                c.authors = (0..<ca.rowCount).filter { ids == nil || ids?.string($0) == citID }.compactMap { names.string($0) }
            }
            md.citation = c
        }
        md.compounds = []
        var organisms: [String] = []
        for (cat, field) in [("entity_src_gen", "pdbx_gene_src_scientific_name"), ("entity_src_nat", "pdbx_organism_scientific"),
                             ("pdbx_entity_src_syn", "organism_scientific")] {
            for o in all(block, cat, field) where !organisms.contains(o) { organisms.append(o) }
        }
        md.sourceOrganisms = organisms
        s.metadata = md
    }

    // MARK: entities

    static func readEntities(_ block: CIFBlock, into s: inout Structure) {
        var entities: [Entity] = []
        var indexOf: [String: Int] = [:]
        if let e = block["entity"], let ids = e["id"] {
            for row in 0..<e.rowCount {
                guard let id = ids.string(row) else { continue }
                let type = e["type"]?.string(row) ?? "polymer"
                let kind = EntityKind(rawValue: type) ?? (type == "branched" ? .branched : .nonPolymer)
                var entity = Entity(id: id, kind: kind)
                entity.description = e["pdbx_description"]?.string(row) ?? ""
                indexOf[id] = entities.count
                entities.append(entity)
            }
        }
        if let poly = block["entity_poly"], let ids = poly["entity_id"] {
            for row in 0..<poly.rowCount {
                guard let id = ids.string(row), let i = indexOf[id] else { continue }
                let t = (poly["type"]?.string(row) ?? "").lowercased()
                entities[i].polymerType = t.contains("peptide") ? .protein : t.contains("hybrid") ? .hybrid
                    : t.contains("deoxyribo") ? .dna : t.contains("ribo") ? .rna : .other
            }
        }
        if let seq = block["entity_poly_seq"], let ids = seq["entity_id"], let mons = seq["mon_id"] {
            let nums = seq["num"]
            var lastNum: [String: Int] = [:]
            for row in 0..<seq.rowCount {
                guard let id = ids.string(row), let i = indexOf[id], let mon = mons.string(row) else { continue }
                // Microheterogeneity lists several monomers at one position: keep the first.
                if let n = nums?.int(row) { if lastNum[id] == n { continue }; lastNum[id] = n }
                entities[i].monomers.append(mon)
            }
        }
        // Chains holding each entity, and each chain's (polymer-preferred) entity, from atom_site.
        if let model = s.models.first, let site = block["atom_site"], let ent = site["label_entity_id"] {
            _ = model
            // Residues may have been regrouped by chain, so map entities through label_asym_id.
            var entityOfAsym: [String: String] = [:]
            if let asyms = site["label_asym_id"] {
                var prev = ""
                for row in 0..<site.rowCount {
                    guard let a = asyms.string(row), a != prev else { continue }
                    prev = a
                    if entityOfAsym[a] == nil, let e = ent.string(row) { entityOfAsym[a] = e }
                }
            }
            for m in s.models.indices {
                let md = s.models[m]
                for c in md.chains.indices {
                    var chosen: Int? = nil
                    for r in md.chains[c].residueRange {
                        let asym = r < md.residueLabelAsym.count ? md.residueLabelAsym[r] : ""
                        guard let eid = entityOfAsym[asym], let ei = indexOf[eid] else { continue }
                        if m == 0, !entities[ei].chainIDs.contains(md.chains[c].id) { entities[ei].chainIDs.append(md.chains[c].id) }
                        if let c = chosen {
                            if entities[ei].kind == .polymer && entities[c].kind != .polymer { chosen = ei }
                        } else {
                            chosen = ei
                        }
                    }
                    s.models[m].chains[c].entityIndex = chosen
                }
            }
        }
        s.entities = entities
        s.metadata.compounds = entities.filter { $0.kind == .polymer }.map(\.description).filter { !$0.isEmpty }
    }

    // MARK: annotations

    static func ref(_ cat: CIFCategory, _ row: Int, prefix: String, insCode: String) -> ResidueRef? {
        guard let chain = (cat["\(prefix)_auth_asym_id"] ?? cat["\(prefix)_label_asym_id"])?.string(row),
              let num = (cat["\(prefix)_auth_seq_id"] ?? cat["\(prefix)_label_seq_id"])?.int(row) else { return nil }
        var code: UInt8 = 0
        if let s = cat[insCode]?.string(row), s.utf8.count == 1 { code = s.utf8.first ?? 0 }
        return ResidueRef(chainID: chain, number: Int32(clamping: num), insertionCode: code)
    }

    static func readSecondaryStructure(_ block: CIFBlock, into s: inout Structure) {
        if let conf = block["struct_conf"] {
            for row in 0..<conf.rowCount {
                let type = (conf["conf_type_id"]?.string(row) ?? "").uppercased()
                guard type.hasPrefix("HELX") else { continue }
                guard let a = ref(conf, row, prefix: "beg", insCode: "pdbx_beg_pdb_ins_code"),
                      let b = ref(conf, row, prefix: "end", insCode: "pdbx_end_pdb_ins_code") else { continue }
                let cls = HelixClass(rawValue: conf["pdbx_pdb_helix_class"]?.int(row) ?? 1) ?? .alpha
                s.secondaryStructureRecords.append(.init(kind: .helix(cls), start: a, end: b))
            }
        }
        if let sheet = block["struct_sheet_range"] {
            for row in 0..<sheet.rowCount {
                guard let a = ref(sheet, row, prefix: "beg", insCode: "pdbx_beg_pdb_ins_code"),
                      let b = ref(sheet, row, prefix: "end", insCode: "pdbx_end_pdb_ins_code") else { continue }
                s.secondaryStructureRecords.append(.init(kind: .strand(sheetID: sheet["sheet_id"]?.string(row) ?? "", sense: 0), start: a, end: b))
            }
        }
    }

    static func readConnections(_ block: CIFBlock, into s: inout Structure) {
        guard let conn = block["struct_conn"] else { return }
        func atom(_ row: Int, _ p: String) -> AtomRef? {
            guard let r = ref(conn, row, prefix: "\(p)", insCode: "pdbx_\(p)_pdb_ins_code"),
                  let name = (conn["\(p)_auth_atom_id"] ?? conn["\(p)_label_atom_id"])?.string(row) else { return nil }
            let comp = (conn["\(p)_auth_comp_id"] ?? conn["\(p)_label_comp_id"])?.string(row) ?? ""
            var alt: UInt8 = 0
            if let a = conn["pdbx_\(p)_label_alt_id"]?.string(row), a.utf8.count == 1 { alt = a.utf8.first ?? 0 }
            return AtomRef(residue: r, residueName: comp, atomName: name, altLoc: alt)
        }
        for row in 0..<conn.rowCount {
            let type = (conn["conn_type_id"]?.string(row) ?? "").lowercased()
            let kind: ExplicitBond.Kind
            switch type {
            case "disulf": kind = .disulfide
            case "metalc": kind = .metal
            case "hydrog": kind = .hydrogen
            case "covale", "covale_base", "covale_phosphate", "covale_sugar": kind = .covalent
            default: continue
            }
            guard let a = atom(row, "ptnr1"), let b = atom(row, "ptnr2") else { continue }
            let order: BondOrder
            switch (conn["pdbx_value_order"]?.string(row) ?? "").lowercased() {
            case "doub": order = .double
            case "trip": order = .triple
            default: order = .single
            }
            s.explicitBonds.append(ExplicitBond(a: a, b: b, kind: kind, order: order))
        }
    }

    static func readAssemblies(_ block: CIFBlock, into s: inout Structure, fileName: String) throws {
        if let ops = block["pdbx_struct_oper_list"], let ids = ops["id"] {
            for row in 0..<ops.rowCount {
                guard let id = ids.string(row) else { continue }
                var r = [Double](repeating: 0, count: 9)
                var t = SIMD3<Double>(0, 0, 0)
                for i in 1...3 {
                    for j in 1...3 { r[(i - 1) * 3 + j - 1] = ops["matrix[\(i)][\(j)]"]?.double(row) ?? (i == j ? 1 : 0) }
                    t[i - 1] = ops["vector[\(i)]"]?.double(row) ?? 0
                }
                s.operators[id] = SymmetryOperator(id: id, rotation: r, translation: t)
            }
        }
        guard let asm = block["pdbx_struct_assembly"], let ids = asm["id"] else { return }
        var assemblies: [Assembly] = []
        var indexOf: [String: Int] = [:]
        for row in 0..<asm.rowCount {
            guard let id = ids.string(row) else { continue }
            var a = Assembly(id: id)
            a.details = asm["details"]?.string(row) ?? ""
            a.oligomericCount = asm["oligomeric_count"]?.int(row)
            indexOf[id] = assemblies.count
            assemblies.append(a)
        }
        if let gen = block["pdbx_struct_assembly_gen"] {
            for row in 0..<gen.rowCount {
                guard let aid = gen["assembly_id"]?.string(row), let i = indexOf[aid],
                      let expr = gen["oper_expression"]?.string(row), let asyms = gen["asym_id_list"]?.string(row) else { continue }
                let sequences: [[String]]
                do { sequences = try OperatorExpression.parse(expr) } catch {
                    throw StructureReadError(file: fileName, field: "_pdbx_struct_assembly_gen.oper_expression", message: "\(error)")
                }
                for seq in sequences { for op in seq where s.operators[op] == nil {
                    throw StructureReadError(file: fileName, field: "_pdbx_struct_assembly_gen.oper_expression",
                                             message: "assembly \(aid) uses operator '\(op)', which _pdbx_struct_oper_list does not define")
                } }
                let chains = asyms.split(separator: ",").map { String($0).trimmingSpaces }.filter { !$0.isEmpty }
                assemblies[i].generators.append(AssemblyGenerator(operatorExpression: expr, operatorSequences: sequences,
                                                                  chainIDs: chains, chainIDsAreAuthor: false))
            }
        }
        s.assemblies = assemblies
    }
}
