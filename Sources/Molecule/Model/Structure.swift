/// A structure as read from one file: descriptive metadata, entities, one or more models, and the
/// file's own annotations (secondary structure, explicit bonds, assemblies) that apply to every model.
public struct Structure: Sendable {
    public var metadata = Metadata()
    public var entities: [Entity] = []
    public var models: [Model] = []
    /// Helix and strand ranges as the file records them (HELIX/SHEET, struct_conf/struct_sheet_range).
    public var secondaryStructureRecords: [SecondaryStructureRecord] = []
    /// Bonds the file states (CONECT, LINK, SSBOND, struct_conn).
    public var explicitBonds: [ExplicitBond] = []
    public var assemblies: [Assembly] = []
    public var operators: [String: SymmetryOperator] = [:]
    /// The format the structure was read from.
    public var sourceFormat: StructureFormat = .pdb
    /// Data items of small-molecule records (SDF `> <NAME>` blocks), one dictionary per model.
    public var recordProperties: [[String: String]] = []

    public init() {}

    public var firstModel: Model? { models.first }

    /// What to say when a file read but holds no atom (a PDB file of header records alone):
    /// "this file has no atoms: only its header (title 'HIV-1 PROTEASE')".
    public var noAtomsMessage: String {
        let title = metadata.title.isEmpty ? metadata.id : metadata.title
        return title.isEmpty ? "this file has no atoms: only its header" : "this file has no atoms: only its header (title '\(title.prefix(80))')"
    }
}

public struct Metadata: Sendable, Equatable {
    public var id = ""
    public var title = ""
    public var keywords: [String] = []
    /// PDB HEADER classification or struct_keywords.pdbx_keywords, e.g. "TRANSFERASE".
    public var classification = ""
    /// ISO date (yyyy-mm-dd) when known.
    public var depositionDate = ""
    public var experimentalMethods: [String] = []
    /// Resolution in Å for diffraction and EM entries.
    public var resolution: Double?
    public var authors: [String] = []
    public var citation: Citation?
    /// Molecule names from COMPND / entity.pdbx_description.
    public var compounds: [String] = []
    /// Source organisms (scientific names).
    public var sourceOrganisms: [String] = []
    /// Full names of the chemical components the file names (mmCIF `_chem_comp.name`, PDB HETNAM),
    /// by their code: "AP5" → "BIS(ADENOSINE)-5'-PENTAPHOSPHATE".
    public var componentNames: [String: String] = [:]
    /// The crystal's unit cell (PDB CRYST1, a small-molecule CIF's `_cell`), when the file gives one.
    public var cell: UnitCell?
    /// Its space group as the file names it ("P 21 21 21", "P 1 21/c 1").
    public var spaceGroup = ""

    public init() {}

    public var method: String { experimentalMethods.joined(separator: "; ") }

    /// Most characters of a title as read: a file may say anything, and every list shows titles.
    public static let titleCharacters = 300
    /// Most characters of any other text field, and most entries of a list of them.
    public static let fieldCharacters = 1_000
    public static let listEntries = 500

    /// Cuts every text field to its limit (readers call this once, so nothing downstream holds a
    /// 50 MB title).
    public mutating func limitText() {
        func cut(_ s: String, _ n: Int) -> String { s.count > n ? String(s.prefix(n - 1)) + "…" : s }
        func cut(_ list: [String]) -> [String] { list.prefix(Self.listEntries).map { cut($0, Self.fieldCharacters) } }
        id = cut(id, Self.fieldCharacters); title = cut(title, Self.titleCharacters)
        classification = cut(classification, Self.fieldCharacters); spaceGroup = cut(spaceGroup, 40); depositionDate = cut(depositionDate, Self.fieldCharacters)
        keywords = cut(keywords); experimentalMethods = cut(experimentalMethods); authors = cut(authors)
        compounds = cut(compounds); sourceOrganisms = cut(sourceOrganisms)
        if componentNames.count > Self.listEntries || componentNames.contains(where: { $0.key.count > 16 || $0.value.count > Self.fieldCharacters }) {
            componentNames = Dictionary(uniqueKeysWithValues: componentNames.filter { $0.key.count <= 16 }
                .sorted { $0.key < $1.key }.prefix(Self.listEntries).map { ($0.key, cut($0.value, Self.fieldCharacters)) })
        }
        if var c = citation {
            c.title = cut(c.title, Self.fieldCharacters); c.journal = cut(c.journal, Self.fieldCharacters); c.authors = cut(c.authors)
            citation = c
        }
    }
}

public struct Citation: Sendable, Equatable {
    public var title = ""
    public var journal = ""
    public var volume = ""
    public var firstPage = ""
    public var year: Int?
    public var doi = ""
    public var pubMedID = ""
    public var authors: [String] = []
    public init() {}
}

public enum EntityKind: String, Sendable, Equatable {
    case polymer, nonPolymer = "non-polymer", water, branched
}

public enum PolymerType: String, Sendable, Equatable {
    case protein, dna, rna, hybrid, other
}

public struct Entity: Sendable, Equatable {
    public var id: String
    public var kind: EntityKind
    public var description = ""
    public var polymerType: PolymerType?
    /// Monomer names in order (from SEQRES / entity_poly_seq, or the modelled residues).
    public var monomers: [String] = []
    /// Chains (author ids) that hold this entity.
    public var chainIDs: [String] = []

    public init(id: String, kind: EntityKind) { self.id = id; self.kind = kind }

    /// One-letter sequence of a polymer entity.
    public var sequence: String { String(monomers.map(ResidueKind.oneLetterCode)) }
}

/// The DSSP alphabet; `coil` is DSSP's blank.
public enum SecondaryStructureCode: UInt8, Sendable, Equatable, CaseIterable {
    case coil = 0x2D      // "-"
    case alphaHelix = 0x48  // H
    case helix310 = 0x47    // G
    case piHelix = 0x49     // I
    case strand = 0x45      // E
    case bridge = 0x42      // B
    case turn = 0x54        // T
    case bend = 0x53        // S
    case polyproline = 0x50 // P

    public var letter: Character { Character(UnicodeScalar(rawValue)) }

    /// Three-state reduction (H, E, C) used to compare assignments.
    public var threeState: Character {
        switch self {
        case .alphaHelix, .helix310, .piHelix: return "H"
        case .strand, .bridge: return "E"
        default: return "C"
        }
    }
}

/// A residue identified the way files cross-reference residues: author chain, number, insertion code.
public struct ResidueRef: Hashable, Sendable {
    public var chainID: String
    public var number: Int32
    public var insertionCode: UInt8
    public init(chainID: String, number: Int32, insertionCode: UInt8 = 0) {
        self.chainID = chainID; self.number = number; self.insertionCode = insertionCode
    }
}

public struct SecondaryStructureRecord: Sendable, Equatable {
    public enum Kind: Sendable, Equatable { case helix(HelixClass), strand(sheetID: String, sense: Int) }
    public var kind: Kind
    public var start: ResidueRef
    public var end: ResidueRef
    public init(kind: Kind, start: ResidueRef, end: ResidueRef) { self.kind = kind; self.start = start; self.end = end }

    public var code: SecondaryStructureCode {
        switch kind {
        case .helix(let c): return c.code
        case .strand: return .strand
        }
    }
}

/// PDB HELIX class numbers (1 right-handed α, 3 π, 5 3₁₀, 10 polyproline).
public enum HelixClass: Int, Sendable, Equatable {
    case alpha = 1, omega = 2, pi = 3, gamma = 4, threeTen = 5, leftAlpha = 6, leftOmega = 7, leftGamma = 8,
         twoSeven = 9, polyproline = 10

    var code: SecondaryStructureCode {
        switch self {
        case .pi: return .piHelix
        case .threeTen: return .helix310
        case .polyproline: return .polyproline
        default: return .alphaHelix
        }
    }
}

/// An atom named the way cross-references in files name it.
public struct AtomRef: Hashable, Sendable {
    public var residue: ResidueRef
    public var residueName: String
    public var atomName: String
    public var altLoc: UInt8
    public init(residue: ResidueRef, residueName: String, atomName: String, altLoc: UInt8 = 0) {
        self.residue = residue; self.residueName = residueName; self.atomName = atomName; self.altLoc = altLoc
    }
}

public struct ExplicitBond: Sendable, Equatable {
    public enum Kind: String, Sendable, Equatable { case covalent, disulfide, metal, hydrogen }
    public var a: AtomRef
    public var b: AtomRef
    public var kind: Kind
    public var order: BondOrder
    public init(a: AtomRef, b: AtomRef, kind: Kind, order: BondOrder = .single) {
        self.a = a; self.b = b; self.kind = kind; self.order = order
    }
}

public enum BondOrder: UInt8, Sendable, Equatable {
    case single = 1, double = 2, triple = 3, aromatic = 4, unknown = 0
}

public enum StructureFormat: String, Sendable, Equatable, CaseIterable {
    /// `smallMoleculeCIF`: a crystal structure in CIF (core dictionary: cell, symmetry, fractional sites).
    case pdb, mmcif, binaryCIF = "bcif", sdf, mol2000 = "mol", mol2, smallMoleculeCIF = "cif", xyz
}
