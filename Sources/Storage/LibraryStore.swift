import Foundation

/// Where the library lives: SQLite on one machine (the default), PostgreSQL when several servers
/// share one library. Both keep the same tables, and every write that belongs together (a molecule
/// and its file) is one transaction, so a process killed half-way leaves no half-written record.
public protocol LibraryStore: RoomLogStore, AccountStore, InvitationStore, LessonStore {
    /// A short name for logs and health checks (`sqlite:/path`, `postgres://host/db`).
    var location: String { get }

    /// Creates or upgrades the tables.
    func migrate() async throws

    func molecules(_ query: MoleculeQuery) async throws -> MoleculePage
    func molecule(id: String) async throws -> MoleculeRecord?
    /// Adds the molecule with its original file (gzip-compressed), or replaces one with the same id.
    func add(_ record: MoleculeRecord, compressedFile: [UInt8]) async throws
    /// The original file, gzip-compressed, as stored with `add`.
    func compressedFile(moleculeID: String) async throws -> [UInt8]?
    /// Removes the molecule, its file and its cached models; false when there was none.
    func remove(id: String) async throws -> Bool
    /// Marks the molecule as just viewed.
    func touch(id: String) async throws
    /// How many molecules the library holds (archive-cache entries not counted).
    func count() async throws -> Int

    /// Moves an archive-cache entry into the library (kept for good); false when there is no such molecule.
    func moveIntoLibrary(id: String) async throws -> Bool
    /// Notes that the archive confirmed the molecule's file at `date`.
    func markChecked(id: String, at date: Date) async throws
    /// The archive cache's entries and bytes.
    func archiveCacheSize() async throws -> ArchiveCacheSize
    /// Removes archive-cache entries, least recently viewed first, until their files take at most
    /// `limitBytes`; library molecules are never touched. Returns the ids removed.
    func evictArchiveCache(limitBytes: Int) async throws -> [String]

    /// Adds the molecule to the account's own list ("My molecules"); nothing when it is there already.
    func keep(moleculeID: String, accountID: String) async throws
    /// Takes the molecule off the account's list; false when it was not on it.
    func unkeep(moleculeID: String, accountID: String) async throws -> Bool
    /// Bytes of the molecules' original files (uncompressed): those `ownerID` owns, or all when nil.
    func storedBytes(ownerID: String?) async throws -> Int

    /// A cached derived file, marked as just used.
    func cachedModel(key: String) async throws -> CachedModel?
    /// Caches a derived file, then evicts the least recently used ones beyond `cacheLimitBytes`.
    func cacheModel(_ model: CachedModel) async throws
    /// Bytes held by cached models.
    func cacheSize() async throws -> Int
    var cacheLimitBytes: Int { get }

    func close() async throws
}
