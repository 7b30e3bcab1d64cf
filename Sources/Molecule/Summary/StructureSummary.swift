/// What `proteinar info` reports and the library will store: counts of the first model (or of an
/// expanded assembly), chains with sequences, secondary structure, ligands and assemblies.
public struct StructureSummary: Codable, Sendable, Equatable {
    public struct ChainSummary: Codable, Sendable, Equatable {
        public var id: String
        public var residues: Int
        public var atoms: Int
        /// Polymer type of the chain's entity, or "non-polymer"/"water".
        public var type: String
        /// One-letter codes of the modelled polymer residues.
        public var sequence: String
        /// The entity's full sequence (SEQRES / entity_poly_seq) when it differs from the modelled one.
        public var entitySequence: String?
        /// Modelled polymer residues (amino acids or nucleotides): the sequence's length, while
        /// `residues` counts the chain's waters and ligands too.
        public var monomers: Int?
    }
    public struct LigandSummary: Codable, Sendable, Equatable {
        public var name: String
        public var count: Int
        public var atoms: Int
        /// The component's full name as the file gives it (mmCIF `_chem_comp.name`, PDB HETNAM).
        public var fullName: String?
    }
    public struct AssemblySummary: Codable, Sendable, Equatable {
        public var id: String
        public var chains: Int
        public var operators: Int
        public var details: String
    }

    public var id: String
    public var title: String
    public var format: String
    public var method: String
    public var resolution: Double?
    public var classification: String
    public var depositionDate: String
    public var authors: [String]
    public var organisms: [String]
    public var models: Int
    public var atoms: Int
    public var residues: Int
    public var bonds: Int
    public var chains: [ChainSummary]
    /// Residue counts per DSSP letter over polymer residues ("-" for coil).
    public var secondaryStructure: [String: Int]
    /// "file" when taken from HELIX/SHEET records, "dssp" when computed.
    public var secondaryStructureSource: String
    public var ligands: [LigandSummary]
    /// Water molecules of the model (counted in `residues`, apart from ligands and polymers).
    public var waters: Int?
    public var assemblies: [AssemblySummary]
    /// The assembly the counts describe, if one was expanded.
    public var assembly: String?
    /// The crystal's unit cell (CRYST1, a small-molecule CIF's `_cell`) and space group, when given.
    public var cell: UnitCell?
    public var spaceGroup: String?

    /// Encodes every key, with `null` for absent values, so scripts can rely on the keys being there.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id); try c.encode(title, forKey: .title); try c.encode(format, forKey: .format)
        try c.encode(method, forKey: .method); try c.encode(resolution, forKey: .resolution)
        try c.encode(classification, forKey: .classification); try c.encode(depositionDate, forKey: .depositionDate)
        try c.encode(authors, forKey: .authors); try c.encode(organisms, forKey: .organisms)
        try c.encode(models, forKey: .models); try c.encode(atoms, forKey: .atoms); try c.encode(residues, forKey: .residues)
        try c.encode(bonds, forKey: .bonds); try c.encode(chains, forKey: .chains)
        try c.encode(secondaryStructure, forKey: .secondaryStructure)
        try c.encode(secondaryStructureSource, forKey: .secondaryStructureSource)
        try c.encode(ligands, forKey: .ligands); try c.encode(waters, forKey: .waters)
        try c.encode(assemblies, forKey: .assemblies); try c.encode(assembly, forKey: .assembly)
        try c.encode(cell, forKey: .cell); try c.encode(spaceGroup, forKey: .spaceGroup)
    }

    /// Summarises model `modelIndex` of `structure`; `bonds` may be skipped (-1) for speed.
    public init(_ structure: Structure, modelIndex: Int = 0, computeDSSP: Bool = false, countBonds: Bool = true, assembly: String? = nil) {
        let md = structure.metadata
        id = md.id; title = md.title; format = structure.sourceFormat.rawValue; method = md.method
        resolution = md.resolution; classification = md.classification; depositionDate = md.depositionDate
        authors = md.authors; organisms = md.sourceOrganisms
        models = structure.models.count
        self.assembly = assembly
        cell = md.cell
        spaceGroup = md.spaceGroup.isEmpty ? nil : md.spaceGroup
        guard modelIndex < structure.models.count else {
            atoms = 0; residues = 0; bonds = structure.explicitBonds.count; chains = []; secondaryStructure = [:]
            secondaryStructureSource = "none"; ligands = []; waters = 0; assemblies = []
            return
        }
        let model = structure.models[modelIndex]
        atoms = model.atoms.count
        residues = model.residues.count
        bonds = countBonds ? BondBuilder.bonds(of: model, in: structure).count : -1

        let polymer = structure.polymerResidueFlags(modelIndex: modelIndex)
        chains = model.chains.map { chain in
            var seq: [Character] = []
            var lastNumber: (Int32, UInt8)? = nil
            var polymerResidues = 0
            for r in chain.residueRange where polymer[r] {
                let res = model.residues[r]
                if let last = lastNumber, last == (res.number, res.insertionCode) { continue }  // microheterogeneity
                lastNumber = (res.number, res.insertionCode)
                seq.append(ResidueKind.oneLetterCode(res.name))
                polymerResidues += 1
            }
            let entity = chain.entityIndex.flatMap { $0 < structure.entities.count ? structure.entities[$0] : nil }
            let type: String
            if let entity, entity.kind == .polymer { type = entity.polymerType?.rawValue ?? "polymer" }
            else if polymerResidues > 1 { type = "polymer" }
            else { type = entity?.kind.rawValue ?? (chain.residueRange.allSatisfy { model.residues[$0].isWater } ? "water" : "non-polymer") }
            let modelled = String(seq)
            let full = entity.flatMap { $0.kind == .polymer && !$0.monomers.isEmpty ? $0.sequence : nil }
            return ChainSummary(id: chain.id, residues: chain.residueCount,
                                atoms: chain.residueRange.reduce(0) { $0 + model.residues[$1].atomCount },
                                type: type, sequence: modelled, entitySequence: full == modelled ? nil : full, monomers: polymerResidues)
        }

        let codes = structure.secondaryStructure(modelIndex: modelIndex, compute: computeDSSP)
        var counts: [String: Int] = [:]
        for r in model.residues.indices where polymer[r] {
            counts[String(codes[r].letter), default: 0] += 1
        }
        secondaryStructure = counts
        secondaryStructureSource = computeDSSP || !structure.hasSecondaryStructureRecords ? "dssp" : "file"

        var ligandCounts: [String: (Int, Int)] = [:]
        var ligandOrder: [String] = []
        for (r, res) in model.residues.enumerated() where res.kind == .other && !polymer[r] {
            if ligandCounts[res.name] == nil { ligandOrder.append(res.name) }
            ligandCounts[res.name, default: (0, 0)].0 += 1
            ligandCounts[res.name, default: (0, 0)].1 += res.atomCount
        }
        ligands = ligandOrder.map { LigandSummary(name: $0, count: ligandCounts[$0]?.0 ?? 0, atoms: ligandCounts[$0]?.1 ?? 0,
                                                  fullName: md.componentNames[$0]) }
        waters = model.residues.reduce(0) { $0 + ($1.isWater ? 1 : 0) }

        assemblies = structure.assemblies.map { a in
            AssemblySummary(id: a.id, chains: structure.chainCount(ofAssembly: a, modelIndex: modelIndex),
                            operators: a.generators.reduce(0) { $0 + $1.operatorSequences.count }, details: a.details)
        }
    }
}

extension Structure {
    /// Whether each residue of a model belongs to a polymer: standard amino acids and nucleotides,
    /// and modified ones (MSE, SME, …) that the chain's polymer entity lists in its sequence.
    public func polymerResidueFlags(modelIndex: Int = 0) -> [Bool] {
        guard modelIndex < models.count else { return [] }
        let model = models[modelIndex]
        var flags = [Bool](repeating: false, count: model.residues.count)
        for chain in model.chains {
            let entity = chain.entityIndex.flatMap { $0 < entities.count ? entities[$0] : nil }
            let monomers = entity.map { $0.kind == .polymer ? Set($0.monomers) : [] } ?? []
            for r in chain.residueRange {
                let res = model.residues[r]
                flags[r] = res.kind == .aminoAcid || res.kind == .nucleotide || monomers.contains(res.name)
            }
        }
        return flags
    }

    /// Chains an assembly would have once expanded, counted without building it.
    public func chainCount(ofAssembly a: Assembly, modelIndex: Int = 0) -> Int {
        guard modelIndex < models.count else { return 0 }
        let model = models[modelIndex]
        let hasLabels = model.residueLabelAsym.count == model.residues.count
        var total = 0
        for g in a.generators {
            let set = Set(g.chainIDs)
            let chains = model.chains.filter { chain in
                if !g.chainIDsAreAuthor, hasLabels { return chain.residueRange.contains { set.contains(model.residueLabelAsym[$0]) } }
                return set.contains(chain.id)
            }.count
            total += chains * g.operatorSequences.count
        }
        return total
    }
}
