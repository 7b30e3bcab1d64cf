/// Reads Chemical Component Dictionary entries (`_chem_comp_atom`, `_chem_comp_bond`), such as
/// ATP.cif or a file of many components: each component becomes one residue in a chain named after
/// it, placed at its ideal coordinates (model coordinates where ideal ones are missing).
enum ChemicalComponentReader {
    static let categoriesRead: Set<String> = ["chem_comp", "chem_comp_atom", "chem_comp_bond"]

    static func read(_ blocks: [CIFBlock], fileName: String, format: StructureFormat, limits: ReadLimits = .standard) throws -> Structure {
        var s = Structure()
        s.sourceFormat = format
        var builder = StructureBuilder(limits: limits)
        var sawAtoms = false
        var sawBonds = false
        // Bonds are resolved to atom indices once the model is built.
        var pending: [(comp: String, a: String, b: String, order: BondOrder)] = []
        for block in blocks {
            if let atoms = block["chem_comp_atom"] {
                let comp = atoms["comp_id"], name = atoms["atom_id"], element = atoms["type_symbol"], charge = atoms["charge"]
                let ideal = (atoms["pdbx_model_cartn_x_ideal"], atoms["pdbx_model_cartn_y_ideal"], atoms["pdbx_model_cartn_z_ideal"])
                let model = (atoms["model_cartn_x"], atoms["model_cartn_y"], atoms["model_cartn_z"])
                for row in 0..<atoms.rowCount {
                    let compID = comp?.string(row) ?? block.name
                    func coordinate(_ i: (CIFColumn?, CIFColumn?, CIFColumn?)) -> SIMD3<Float>? {
                        guard let x = i.0?.double(row), let y = i.1?.double(row), let z = i.2?.double(row),
                              abs(x) < 1e6, abs(y) < 1e6, abs(z) < 1e6 else { return nil }
                        return SIMD3(Float(x), Float(y), Float(z))
                    }
                    // Components without any coordinates still list their atoms; place them at the origin.
                    let position = coordinate(ideal) ?? coordinate(model) ?? .zero
                    var compBytes = compID
                    compBytes.withUTF8 { c in builder.residue(chain: c, name: c, number: 1, insertionCode: 0) }
                    let atomName = name?.string(row) ?? ""
                    builder.addAtom(Atom(name: atomName, element: Element(symbol: element?.string(row) ?? "") ?? .unknown,
                                         serial: Int32(clamping: row + 1), formalCharge: Int8(clamping: charge?.int(row) ?? 0),
                                         isHetero: ResidueKind.of(compID) == .other, position: position))
                    if let why = builder.refusal {
                        throw StructureReadError(file: fileName, field: "_chem_comp_atom", message: "row \(row + 1): \(why)", isTooLarge: true)
                    }
                    sawAtoms = true
                }
            }
            if let bonds = block["chem_comp_bond"] {
                let comp = bonds["comp_id"], a1 = bonds["atom_id_1"], a2 = bonds["atom_id_2"]
                let order = bonds["value_order"], aromatic = bonds["pdbx_aromatic_flag"]
                // Blocks of one component may leave comp_id out of their bond loop.
                let blockComp = MMCIFReader.first(block, "chem_comp", "id") ?? block.name
                for row in 0..<bonds.rowCount {
                    guard let n1 = a1?.string(row), let n2 = a2?.string(row) else { continue }
                    let c = comp?.string(row) ?? blockComp
                    let residue = ResidueRef(chainID: c, number: 1)
                    var o: BondOrder
                    switch (order?.string(row) ?? "").uppercased() {
                    case "DOUB": o = .double
                    case "TRIP": o = .triple
                    default: o = .single
                    }
                    if aromatic?.string(row)?.uppercased() == "Y" { o = .aromatic }
                    pending.append((c, n1, n2, o))
                    s.explicitBonds.append(ExplicitBond(a: AtomRef(residue: residue, residueName: c, atomName: n1),
                                                        b: AtomRef(residue: residue, residueName: c, atomName: n2), kind: .covalent, order: o))
                    sawBonds = true
                }
            }
        }
        guard sawAtoms || sawBonds else {
            throw StructureReadError(file: fileName, field: "_atom_site", message: "no _atom_site, _chem_comp_atom or _chem_comp_bond category: the file has no structure")
        }
        s.models = sawAtoms ? builder.finish() : []
        // A component's bonds are its topology, stated even where it has no coordinates: keep them
        // on the model by atom index (all entries also stay in `explicitBonds`, named by atom).
        if var model = s.models.first {
            var index: [String: [String: Int32]] = [:]
            for chain in model.chains { for r in chain.residueRange { for a in model.residues[r].atomRange {
                index[chain.id, default: [:]][model.atoms.names[a]] = Int32(a)
            } } }
            for p in pending {
                guard let i = index[p.comp]?[p.a], let j = index[p.comp]?[p.b], i != j else { continue }
                model.bonds.append(ModelBond(a: i, b: j, order: p.order))
            }
            s.models[0] = model
        }
        if let first = blocks.first {
            s.metadata.id = MMCIFReader.first(first, "chem_comp", "id") ?? first.name
            s.metadata.title = MMCIFReader.first(first, "chem_comp", "name") ?? (blocks.count > 1 ? "\(blocks.count) chemical components" : "")
        }
        return s
    }
}
