/// Reads a crystal structure from a small-molecule CIF (core dictionary, as COD and the CSD
/// write them): the cell (`_cell_length_a` …), the sites of the asymmetric unit
/// (`_atom_site_label`, `_atom_site_type_symbol`, `_atom_site_fract_x/y/z`,
/// `_atom_site_occupancy`, `_atom_site_U_iso_or_equiv`) and the symmetry operations
/// (`_space_group_symop_operation_xyz` or `_symmetry_equiv_pos_as_xyz`), in CIF1 names or the
/// same names with mmCIF's dot. Numbers may carry a standard uncertainty, "0.1234(5)".
///
/// The model is the unit cell's contents, as gemmi's `get_all_unit_cell_sites()` makes them:
/// every operation applied to each site, an image dropped when it falls within 0.4 Å of an
/// image of the same site already kept (nearest periodic images), positions wrapped into [0, 1)
/// and made Cartesian with the standard cell matrix (a along x, b in the xy plane). Without listed
/// operations only the sites themselves are used (space group P 1). The atoms form one residue
/// "LIG" in chain "A", named by their site labels, so bonds come from the distance search.
enum SmallMoleculeCIFReader {
    /// Closer than this (Å), two images of one site are one atom on a special position (gemmi's value).
    static let specialPositionTolerance = 0.4
    /// More operations than any space group has (192 in F m -3 m) mean a damaged file.
    static let maxOperations = 192
    /// Most image comparisons (sites × operations²): 2,000 sites in the largest space group.
    static let maxComparisons = 2_000 * 192 * 192

    static func isCrystalStructure(_ block: CIFBlock) -> Bool {
        block.column(tag: "atom_site_fract_x") != nil
    }

    /// A column by its CIF1 tag, or the first of several; with the tag as written for messages.
    static func column(_ block: CIFBlock, _ tags: String...) -> (column: CIFColumn, tag: String)? {
        for t in tags { if let c = block.column(tag: t) { return (c, "_" + t) } }
        return nil
    }

    /// 1-based line of a value of a text CIF column (nil for decoded storage).
    static func line(_ c: CIFColumn, _ row: Int) -> Int? {
        guard case .text(let t) = c.storage, row >= 0, row < t.count else { return nil }
        let start = Int(t.starts.starts[t.firstToken + row * t.stride])
        return t.source.bytes.withUnsafeBufferPointer { CIFParser.lineNumber($0, at: start) }
    }

    static func read(_ block: CIFBlock, fileName: String, limits: ReadLimits = .standard) throws -> Structure {
        func fail(_ c: (column: CIFColumn, tag: String)?, row: Int = 0, _ message: String, tooLarge: Bool = false) -> StructureReadError {
            StructureReadError(file: fileName, line: c.flatMap { line($0.column, row) }, field: c?.tag, message: message, isTooLarge: tooLarge)
        }
        func number(_ c: (column: CIFColumn, tag: String), row: Int, what: String) throws -> Double {
            guard let v = c.column.double(row), v.isFinite else {
                let text = c.column.string(row).map { "'\($0.prefix(40))'" } ?? "missing ('?' or '.')"
                throw fail(c, row: row, "\(what) is not a number: \(text)")
            }
            return v
        }

        // The cell.
        var values: [Double] = []
        for (tag, fallback) in [("cell_length_a", nil), ("cell_length_b", nil), ("cell_length_c", nil),
                                ("cell_angle_alpha", 90.0), ("cell_angle_beta", 90.0), ("cell_angle_gamma", 90.0)] {
            if let c = column(block, tag) {
                values.append(try number(c, row: 0, what: tag))
            } else if let fallback {
                values.append(fallback)
            } else {
                throw StructureReadError(file: fileName, field: "_" + tag, message: "required item is missing: a crystal structure needs its cell")
            }
        }
        let cell = UnitCell(a: values[0], b: values[1], c: values[2], alpha: values[3], beta: values[4], gamma: values[5])
        if let problem = cell.problem { throw fail(column(block, "cell_length_a"), problem) }

        // The operations.
        var operations: [SymmetryOperator] = []
        if let ops = column(block, "space_group_symop_operation_xyz", "symmetry_equiv_pos_as_xyz") {
            guard ops.column.count <= maxOperations else {
                throw fail(ops, "\(ops.column.count) symmetry operations, more than the \(maxOperations) of any space group")
            }
            for row in 0..<ops.column.count {
                guard let text = ops.column.string(row), let op = SymmetryOperationText.parse(text, id: "\(row + 1)") else {
                    throw fail(ops, row: row, "operation \(row + 1) is not a symmetry operation such as '-x+1/2, y, -z': '\(ops.column.string(row)?.prefix(60) ?? "?")'")
                }
                operations.append(op)
            }
        }
        if operations.isEmpty { operations = [.identity(id: "1")] }
        let frame = cell.frame

        // The sites.
        guard let fx = column(block, "atom_site_fract_x") else {
            throw StructureReadError(file: fileName, field: "_atom_site_fract_x", message: "required column is missing")
        }
        var axes = [fx]
        for tag in ["atom_site_fract_y", "atom_site_fract_z"] {
            guard let c = column(block, tag) else {
                throw StructureReadError(file: fileName, line: line(fx.column, 0), field: "_" + tag, message: "required column is missing")
            }
            axes.append(c)
        }
        let label = column(block, "atom_site_label")
        let type = column(block, "atom_site_type_symbol")
        let occupancy = column(block, "atom_site_occupancy")
        let uIso = column(block, "atom_site_u_iso_or_equiv")
        let n = fx.column.count
        // Each site's images are compared with each other: bounded work whatever the file says.
        guard n * operations.count * operations.count <= maxComparisons else {
            throw fail(fx, "\(n) sites × \(operations.count) symmetry operations are more than are expanded here", tooLarge: true)
        }
        for c in [axes[1], axes[2], label, type, occupancy, uIso].compactMap({ $0 }) where c.column.count != n {
            throw fail(c, "has \(c.column.count) values for \(n) sites (not in the loop of _atom_site_fract_x)")
        }

        var atoms = AtomTable()
        var names: [String] = []
        atoms.reserveCapacity(min(n * operations.count, limits.maxAtoms))
        for row in 0..<n {
            // A site without coordinates ('?' or '.') is no atom; anything else must be a number.
            if axes.contains(where: { $0.column.state(row) != .present }) { continue }
            var f = SIMD3<Double>()
            for k in 0..<3 { f[k] = try number(axes[k], row: row, what: ["fract_x", "fract_y", "fract_z"][k]) }
            guard f.x.magnitude < 1e4, f.y.magnitude < 1e4, f.z.magnitude < 1e4 else { throw fail(fx, row: row, "site \(row + 1): fractional coordinate out of range") }
            let name = label?.column.string(row) ?? ""
            let element = elementOf(type?.column.string(row)) ?? elementOf(name) ?? .unknown
            var occ = 1.0
            if let occupancy, occupancy.column.state(row) == .present { occ = try number(occupancy, row: row, what: "occupancy") }
            var b = 0.0
            if let uIso, uIso.column.state(row) == .present { b = 8 * Double.pi * Double.pi * (try number(uIso, row: row, what: "U_iso_or_equiv")) }

            // The site's images, one per distinct position (gemmi's get_all_unit_cell_sites).
            var kept: [SIMD3<Double>] = [f]
            for op in operations {
                let p = SymmetryOperationText.apply(op, f)
                if kept.contains(where: { frame.distanceSquared(p, $0) < specialPositionTolerance * specialPositionTolerance }) { continue }
                kept.append(p)
            }
            if let why = limits.refusesAtoms(kept.count, after: atoms.count) { throw fail(fx, row: row, why, tooLarge: true) }
            for p in kept {
                let wrapped = p - p.rounded(.down)
                let xyz = frame.cartesian(wrapped)
                atoms.append(Atom(name: name.isEmpty ? "\(element.symbol)\(row + 1)" : String(name.prefix(16)), element: element,
                                  serial: Int32(atoms.count + 1), occupancy: Float(occ), bFactor: Float(b), isHetero: true,
                                  position: SIMD3(Float(xyz.x), Float(xyz.y), Float(xyz.z))))
            }
            names.append(name)
        }

        var structure = Structure()
        structure.sourceFormat = .smallMoleculeCIF
        var model = Model(number: 1)
        if !atoms.isEmpty {
            model.residues = [Residue(name: "LIG", number: 1, atomStart: 0, atomEnd: Int32(atoms.count))]
            model.chains = [Chain(id: "A", labelID: "A", residueStart: 0, residueEnd: 1)]
        }
        model.atoms = atoms
        structure.models = [model]
        readMetadata(block, cell: cell, into: &structure)
        structure.recordProperties = [["title": structure.metadata.title, "sites": String(names.count),
                                       "operations": String(operations.count)]]
        return structure
    }

    /// The element of a type symbol ("C", "Fe3+", "O2-", "CL") or a label ("C12", "Cl1", "H1A"):
    /// its first two letters when they are a symbol, else its first letter.
    static func elementOf(_ text: String?) -> Element? {
        guard let text else { return nil }
        let u = Array(text.utf8.prefix(2))
        func isLetter(_ b: UInt8) -> Bool { (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) }
        guard let first = u.first, isLetter(first) else { return nil }
        if u.count == 2, isLetter(u[1]), let e = Element.lookup(first, u[1]) { return e }
        return Element.lookup(first, 0)
    }

    static func readMetadata(_ block: CIFBlock, cell: UnitCell, into s: inout Structure) {
        func text(_ tags: String...) -> String? {
            for t in tags {
                if let v = block.column(tag: t)?.string(0)?.collapsingSpaces, !v.isEmpty { return v }
            }
            return nil
        }
        s.metadata.id = block.name
        s.metadata.title = text("chemical_name_systematic", "chemical_name_common", "chemical_name_mineral",
                                "publ_section_title", "chemical_formula_sum") ?? block.name
        s.metadata.cell = cell
        s.metadata.spaceGroup = text("space_group_name_h-m_alt", "symmetry_space_group_name_h-m") ?? ""
        if let authors = block.column(tag: "publ_author_name") {
            s.metadata.authors = (0..<min(authors.count, Metadata.listEntries)).compactMap { authors.string($0) }
        }
    }
}
