/// Which residues are ligands, as PLIP finds them: every residue that is not an amino acid of a
/// chain, nor water, nor a lone halide ion (no interaction here involves one); residues bonded to
/// each other make one ligand (a glycan, a drug fused to a cofactor, a strand of DNA bound by the
/// protein), up to 200 residues (a longer one is a polymer of its own, not a ligand). A free amino
/// acid (all HETATM, bonded to no other amino acid) is a ligand too. A common additive (sulfate,
/// glycerol, buffers) is a ligand marked as such, unless it comes 15 times or more (then it is
/// solvent, as PLIP drops BioLiP's artefacts).
enum LigandFinder {
    /// Ions, buffers and cryoprotectants crystallographers add (a short list of the commonest, by
    /// Chemical Component Dictionary id).
    static let additives: Set<String> = [
        "SO4", "PO4", "GOL", "EDO", "ACT", "ACY", "PEG", "PGE", "PG4", "1PE", "P6G", "MPD", "MRD", "DMS", "FMT", "TRS",
        "EPE", "MES", "CIT", "FLC", "BME", "DTT", "IPA", "EOH", "MOH", "NO3", "NH4", "IMD", "TAR", "MLI", "SIN", "BOG",
        "LDA", "HEZ", "PEO", "CO3", "SCN", "AZI", "NA", "K", "MG", "CA", "ZN", "MN", "CD", "NI", "CO", "CU", "FE", "FE2",
        "HG", "SR", "BA", "CS", "RB", "LI", "UNX",
    ]
    static let halides: Set<String> = ["F", "CL", "BR", "IOD"]

    /// The ligands' residues, each ligand's in the model's order.
    static func ligands(in model: Model, chemistry: AtomChemistry) -> [[Int]] {
        var candidate = [Bool](repeating: false, count: model.residues.count)
        for (r, residue) in model.residues.enumerated() {
            switch residue.kind {
            case .water: continue
            case .aminoAcid: candidate[r] = isFreeAminoAcid(r, model, chemistry)
            case .nucleotide, .other: candidate[r] = !(halides.contains(residue.name) && residue.atomCount == 1)
            }
        }
        // Solvent: an additive that comes 15 times or more.
        var copies: [String: Int] = [:]
        for (r, residue) in model.residues.enumerated() where candidate[r] { copies[residue.name, default: 0] += 1 }
        for (r, residue) in model.residues.enumerated() where candidate[r] && additives.contains(residue.name) && copies[residue.name, default: 0] >= 15 {
            candidate[r] = false
        }
        // Residues bonded to each other are one ligand (union–find over bonds between candidates).
        var parent = Array(model.residues.indices)
        func root(_ r: Int) -> Int { var r = r; while parent[r] != r { parent[r] = parent[parent[r]]; r = parent[r] }; return r }
        func join(_ a: Int, _ b: Int) {
            let r = Int(chemistry.residueOf[a]), s = Int(chemistry.residueOf[b])
            if r != s, candidate[r], candidate[s] { parent[root(s)] = root(r) }
        }
        for (r, residue) in model.residues.enumerated() where candidate[r] {
            for a in residue.atomRange { for b in chemistry.neighbours[a] { join(a, Int(b)) } }
        }
        for (a, b) in chemistry.metalLinks { join(a, b) }
        var groups: [Int: [Int]] = [:]
        var order: [Int] = []
        for r in model.residues.indices where candidate[r] {
            let k = root(r)
            if groups[k] == nil { order.append(k) }
            groups[k, default: []].append(r)
        }
        return order.compactMap { groups[$0] }.filter { $0.count <= maximumResidues }
    }

    /// Most residues one ligand may have (PLIP's limit on composite ligands).
    static let maximumResidues = 200

    private static func isFreeAminoAcid(_ r: Int, _ model: Model, _ chemistry: AtomChemistry) -> Bool {
        let residue = model.residues[r]
        guard residue.atomRange.allSatisfy({ model.atoms.isHetero[$0] }) else { return false }
        return !residue.atomRange.contains { a in
            chemistry.neighbours[a].contains { b in
                let s = Int(chemistry.residueOf[Int(b)])
                return s != r && model.residues[s].kind == .aminoAcid
            }
        }
    }

    /// Elements whose ions coordinate (PLIP's list of metal cations).
    static let metals: Set<UInt8> = [
        3, 11, 12, 13, 19, 20, 24, 25, 26, 27, 28, 29, 30, 31, 37, 38, 44, 45, 46, 47, 48, 49, 51, 55, 56, 57, 58, 59,
        62, 63, 64, 65, 70, 71, 74, 76, 77, 78, 79, 80, 81, 82,
    ]
}
