import Foundation

/// Where a molecule came from: the starter set, an archive (RCSB PDB, AlphaFold DB), a person's
/// file, or the builder. Stored as its raw value.
public enum MoleculeSource: String, Sendable, Codable, CaseIterable {
    case starter, rcsb, alphafold, upload, design
}

/// One molecule in the library: where it came from, what it is, and counts for lists. The full
/// details (chains with sequences, ligands, secondary structure, assemblies) are the engine's
/// summary JSON, kept as text so that the store needs no schema change when the summary grows.
public struct MoleculeRecord: Codable, Sendable, Equatable {
    /// Library key: a PDB ID (`4HHB`, `pdb_00004hhb`), an AlphaFold entry (`AF-P69905-F1`) or
    /// `upload-…` for files people sent.
    public var id: String
    public var source: MoleculeSource
    public var title: String
    /// One line on why the molecule is worth a look (starter library), or nil.
    public var description: String?
    public var method: String?
    public var resolution: Double?
    public var organism: String?
    public var atoms: Int
    public var residues: Int
    public var chains: Int
    /// The original file's format as the reader detected it (`pdb`, `mmcif`, `bcif`, …).
    public var format: String
    /// SHA-256 of the original (uncompressed) file, hex; derived models are cached under it.
    public var fileHash: String
    public var fileSize: Int
    public var summaryJSON: String
    public var addedAt: Date
    public var lastViewedAt: Date?
    /// The account that uploaded the file or saved the design (it may delete it); nil for starter
    /// molecules, archive entries and anonymous additions to an open library.
    public var ownerID: String?
    /// False for an entry of the archive cache: an RCSB or AlphaFold DB entry someone opened, kept
    /// while there is room (least recently viewed out first) and not listed with the library.
    public var inLibrary: Bool
    /// When the archive last confirmed the file (an archive-cache entry is checked again after an
    /// age); nil: when it was added.
    public var checkedAt: Date?

    public init(id: String, source: MoleculeSource, title: String, description: String? = nil, method: String? = nil,
                resolution: Double? = nil, organism: String? = nil, atoms: Int, residues: Int, chains: Int,
                format: String, fileHash: String, fileSize: Int, summaryJSON: String,
                addedAt: Date = Date(), lastViewedAt: Date? = nil, ownerID: String? = nil,
                inLibrary: Bool = true, checkedAt: Date? = nil) {
        self.id = id; self.source = source; self.title = title; self.description = description
        self.method = method; self.resolution = resolution; self.organism = organism
        self.atoms = atoms; self.residues = residues; self.chains = chains; self.format = format
        self.fileHash = fileHash; self.fileSize = fileSize; self.summaryJSON = summaryJSON
        self.addedAt = addedAt; self.lastViewedAt = lastViewedAt; self.ownerID = ownerID
        self.inLibrary = inLibrary; self.checkedAt = checkedAt
    }

    /// When the file was last known to match the archive's.
    public var confirmedAt: Date { checkedAt ?? addedAt }
}

/// Which molecules a list shows.
public struct MoleculeQuery: Sendable, Equatable {
    /// Words matched, case-insensitively, against id, title, organism and description.
    public var text: String?
    public var source: MoleculeSource?
    /// Only the molecules this account keeps ("My molecules").
    public var keptBy: String?
    /// Library molecules (true, the default), archive-cache entries (false) or both (nil).
    public var inLibrary: Bool? = true
    public var offset = 0
    public var limit = 50
    public var order: Order = .recent

    public enum Order: String, Sendable, CaseIterable {
        /// Last viewed first, then last added.
        case recent
        case id
        case title
        case added
    }

    public init(text: String? = nil, source: MoleculeSource? = nil, offset: Int = 0, limit: Int = 50, order: Order = .recent) {
        self.text = text; self.source = source; self.offset = offset; self.limit = limit; self.order = order
    }
}

public struct MoleculePage: Sendable, Equatable {
    public var total: Int
    public var molecules: [MoleculeRecord]
    public init(total: Int, molecules: [MoleculeRecord]) { self.total = total; self.molecules = molecules }
}

/// What the archive cache holds: entries and the bytes of their original files (uncompressed).
public struct ArchiveCacheSize: Sendable, Equatable {
    public var entries: Int
    public var bytes: Int
    public init(entries: Int, bytes: Int) { self.entries = entries; self.bytes = bytes }
}

/// A derived file (a model, a thumbnail) as cached.
public struct CachedModel: Sendable, Equatable {
    public var key: String
    public var moleculeID: String
    public var mediaType: String
    public var bytes: [UInt8]
    public init(key: String, moleculeID: String, mediaType: String, bytes: [UInt8]) {
        self.key = key; self.moleculeID = moleculeID; self.mediaType = mediaType; self.bytes = bytes
    }
}

public struct LibraryStoreError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}
