/// What a tap on a model can name: the first model's atoms and residues, in the order the models'
/// feature ids count them (a vertex's id is its atom's index in the model; a cartoon's vertices name
/// their residue's traced atom). Column arrays, one per field, keep it small on the wire, and a
/// viewer picks with no round trip once it has it, offline too.
public struct IdentifyTable: Codable, Sendable, Equatable {
    public struct Residues: Codable, Sendable, Equatable {
        /// Author chain id, as the sequence and selections name chains.
        public var chain: [String] = []
        public var number: [Int32] = []
        /// The insertion code, or "".
        public var insertion: [String] = []
        /// The component's id (ALA, AP5, HOH).
        public var name: [String] = []
        /// The entity's id, or "" where the file gives none.
        public var entity: [String] = []
        /// DSSP's letter per residue (H, G, I, E, B, T, S, P, or - for coil), as the engine assigns it.
        public var secondary = ""
        /// "amino-acid", "nucleotide", "water" or "other" (ligands, ions).
        public var kind: [String] = []
    }

    public struct Atoms: Codable, Sendable, Equatable {
        /// The atom's residue: an index into `residues`.
        public var residue: [Int32] = []
        public var name: [String] = []
        /// The element's symbol (C, N, FE).
        public var element: [String] = []
        /// B-factors and occupancies rounded to two decimals, as files give them.
        public var bFactor: [Float] = []
        public var occupancy: [Float] = []
        /// x, y, z of each atom in turn, in Å to three decimals as files give them: what a measurement
        /// reads, and what places a label or a measurement's line (by the model node's transform).
        public var xyz: [Float] = []
    }

    public var id: String
    public var residues = Residues()
    public var atoms = Atoms()
    /// Full names of the file's components (mmCIF `_chem_comp.name`, PDB HETNAM): AP5 →
    /// "BIS(ADENOSINE)-5'-PENTAPHOSPHATE".
    public var components: [String: String]

    public init(_ structure: Structure) {
        id = structure.metadata.id
        components = structure.metadata.componentNames
        guard let model = structure.models.first else { return }
        let codes = structure.secondaryStructure()
        let chainOf = model.chainIndexOfResidues()
        for (r, residue) in model.residues.enumerated() {
            let chain = model.chains[Int(chainOf[r])]
            residues.chain.append(chain.id)
            residues.number.append(residue.number)
            residues.insertion.append(residue.insertionCode == 0 ? "" : String(UnicodeScalar(residue.insertionCode)))
            residues.name.append(residue.name)
            residues.entity.append(chain.entityIndex.flatMap { structure.entities.indices.contains($0) ? structure.entities[$0].id : nil } ?? "")
            residues.secondary.append(r < codes.count ? codes[r].letter : "-")
            residues.kind.append(Self.kind(residue.kind))
        }
        let residueOf = model.residueIndexOfAtoms()
        for a in 0..<model.atoms.count {
            atoms.residue.append(Int32(residueOf[a]))
            atoms.name.append(model.atoms.names[a])
            atoms.element.append(model.atoms.elements[a].symbol)
            atoms.bFactor.append(a < model.atoms.bFactors.count ? Self.twoDecimals(model.atoms.bFactors[a]) : 0)
            atoms.occupancy.append(a < model.atoms.occupancies.count ? Self.twoDecimals(model.atoms.occupancies[a]) : 1)
            let p = model.atoms.positions[a]
            atoms.xyz.append(contentsOf: [Self.threeDecimals(p.x), Self.threeDecimals(p.y), Self.threeDecimals(p.z)])
        }
    }

    static func kind(_ kind: ResidueKind) -> String {
        switch kind {
        case .aminoAcid: return "amino-acid"
        case .nucleotide: return "nucleotide"
        case .water: return "water"
        case .other: return "other"
        }
    }

    static func twoDecimals(_ x: Float) -> Float { x.isFinite ? (x * 100).rounded() / 100 : 0 }
    static func threeDecimals(_ x: Float) -> Float { x.isFinite ? (x * 1000).rounded() / 1000 : 0 }
}
