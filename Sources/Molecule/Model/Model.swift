/// A residue: a contiguous run of atoms in its model's `AtomTable`.
public struct Residue: Sendable, Equatable {
    /// Component name from the Chemical Component Dictionary, e.g. "ALA", "HOH", "HEM".
    public var name: String
    /// Author residue number (PDB columns 23-26, `auth_seq_id`).
    public var number: Int32
    /// Insertion code as an ASCII byte, 0 when none.
    public var insertionCode: UInt8
    /// Index in the entity's sequence (`label_seq_id`), nil for non-polymers or when unknown.
    public var sequenceIndex: Int32?
    /// Atoms `atomStart ..< atomEnd` of the model's table.
    public var atomStart: Int32
    public var atomEnd: Int32

    public init(name: String, number: Int32, insertionCode: UInt8 = 0, sequenceIndex: Int32? = nil,
                atomStart: Int32, atomEnd: Int32) {
        self.name = name; self.number = number; self.insertionCode = insertionCode
        self.sequenceIndex = sequenceIndex; self.atomStart = atomStart; self.atomEnd = atomEnd
    }

    public var atomRange: Range<Int> { Int(atomStart)..<Int(atomEnd) }
    public var atomCount: Int { Int(atomEnd - atomStart) }
    public var isWater: Bool { ResidueKind.of(name) == .water }
    public var kind: ResidueKind { ResidueKind.of(name) }
    /// "123A" style label for messages and selections.
    public var label: String { insertionCode == 0 ? "\(number)" : "\(number)\(Character(UnicodeScalar(insertionCode)))" }
}

/// A chain: a contiguous run of residues. Chains are named by the author chain id (`auth_asym_id`),
/// as viewers and people name them; `labelID` keeps mmCIF's `label_asym_id` of its first residue.
public struct Chain: Sendable, Equatable {
    public var id: String
    public var labelID: String
    /// Index into `Structure.entities` of the chain's polymer (or first) entity.
    public var entityIndex: Int?
    public var residueStart: Int32
    public var residueEnd: Int32
    /// For a copy made by an assembly operator, the id of the chain it copies; file annotations
    /// (helices, sheets, links) name that one.
    public var sourceID: String?

    public init(id: String, labelID: String = "", entityIndex: Int? = nil, residueStart: Int32, residueEnd: Int32) {
        self.id = id; self.labelID = labelID; self.entityIndex = entityIndex
        self.residueStart = residueStart; self.residueEnd = residueEnd
    }

    public var residueRange: Range<Int> { Int(residueStart)..<Int(residueEnd) }
    public var residueCount: Int { Int(residueEnd - residueStart) }
}

/// One model (one conformer of an NMR ensemble, one frame of an XYZ trajectory).
public struct Model: Sendable, Equatable {
    public var number: Int
    public var atoms = AtomTable()
    public var residues: [Residue] = []
    public var chains: [Chain] = []
    /// Residue-name label_asym_id (mmCIF subchain) per residue, for assembly expansion; empty
    /// when the file has no such ids (PDB), in which case chains' `labelID`s are used.
    public var residueLabelAsym: [String] = []
    /// Bonds the file states for this model alone, by atom index (SDF/MOL bond blocks); empty for
    /// formats whose bonds apply to every model (those are in `Structure.explicitBonds`).
    public var bonds: [ModelBond] = []

    public init(number: Int) { self.number = number }

    public var atomCount: Int { atoms.count }

    /// Index of the residue holding each atom (computed, not stored).
    public func residueIndexOfAtoms() -> [Int32] {
        var out = [Int32](repeating: 0, count: atoms.count)
        for (r, res) in residues.enumerated() {
            for a in res.atomRange { out[a] = Int32(r) }
        }
        return out
    }

    /// Index of the chain holding each residue.
    public func chainIndexOfResidues() -> [Int32] {
        var out = [Int32](repeating: 0, count: residues.count)
        for (c, ch) in chains.enumerated() {
            for r in ch.residueRange { out[r] = Int32(c) }
        }
        return out
    }

    /// Index of the atom named `name` in residue `r` (first alternate location), if any.
    public func atomIndex(named name: String, inResidue r: Int) -> Int? {
        let res = residues[r]
        for a in res.atomRange where atoms.names[a] == name { return a }
        return nil
    }
}

extension Model {
    /// Bytes held by this model's arrays, for memory reports.
    public var approximateByteCount: Int {
        atoms.approximateByteCount + residues.capacity * MemoryLayout<Residue>.stride
            + chains.capacity * MemoryLayout<Chain>.stride + residueLabelAsym.capacity * MemoryLayout<String>.stride
            + bonds.capacity * MemoryLayout<ModelBond>.stride
    }
}
