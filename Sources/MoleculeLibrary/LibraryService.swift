import CompressNIO
import NIOCore
import Foundation
import Storage
import Logging
import Molecule
import MoleculeMesh
import PDBArchive
import ProteinDesign
import SceneExport
import SceneRender

/// A step of long work, for progress bars and server-sent events.
public struct WorkProgress: Codable, Sendable, Equatable {
    /// `download`, `read`, `store`, `mesh`, `write`.
    public var stage: String
    public var message: String
    /// 0...1 where known.
    public var fraction: Double?
    public init(stage: String, message: String, fraction: Double? = nil) {
        self.stage = stage; self.message = message; self.fraction = fraction
    }
}

public typealias ProgressHandler = @Sendable (WorkProgress) -> Void

/// Why a request failed, in terms an HTTP status or an exit code can carry.
public enum LibraryError: Error, CustomStringConvertible, Sendable {
    /// No such molecule in the library, or no such entry in the archive.
    case notFound(String)
    /// The request itself is wrong (an option, an id).
    case badRequest(String)
    /// The file could not be read (the reader's message).
    case unreadable(String)
    /// The archive could not be reached or kept failing.
    case archiveUnavailable(String)
    case tooLarge(String)
    /// The account's own storage is full.
    case quotaExceeded(String)
    /// The library's storage as a whole is full.
    case libraryFull(String)
    /// The archive did not answer in time.
    case archiveTimedOut(String)
    /// Too much work waits already: try again after `retryAfter` seconds.
    case busy(String, retryAfter: Int)
    /// This client asks for too much at once or too often: try again after `retryAfter` seconds.
    case tooManyRequests(String, retryAfter: Int)

    public var description: String {
        switch self {
        case .notFound(let m), .badRequest(let m), .unreadable(let m), .archiveUnavailable(let m), .archiveTimedOut(let m), .tooLarge(let m),
             .quotaExceeded(let m), .libraryFull(let m), .busy(let m, _), .tooManyRequests(let m, _): return m
        }
    }
}

/// How much the library keeps: per account (their uploads and designs) and in all.
public struct StorageQuota: Sendable {
    /// Bytes of original files (uncompressed) one account may own.
    public var accountBytes: Int
    /// Bytes of original files the whole library may hold.
    public var libraryBytes: Int
    public init(accountBytes: Int = 100 << 20, libraryBytes: Int = 4 << 30) {
        self.accountBytes = accountBytes; self.libraryBytes = libraryBytes
    }
    public static let unlimited = StorageQuota(accountBytes: .max, libraryBytes: .max)
}

/// What the server and the command line do with a library: import files, fetch entries from the
/// archives (one download per entry however many ask at once), and make models and thumbnails,
/// cached by content hash, options and engine version.
public final class LibraryService: Sendable {
    /// Changes whenever meshes, writers or the builder change what they produce, so cached models
    /// are remade and a browser's copy is not answered "not modified" (3: designs with side chains;
    /// 4: side chains kept off their own backbone; 5: the viewer's GLB says what each vertex draws).
    public static let engineVersion = "proteinar-engine-8"

    public let store: any LibraryStore
    public let archive: ArchiveClient
    public let limiter: WorkLimiter
    public let maxUploadBytes: Int
    public let quota: StorageQuota
    /// The most recently served models, ready to send, in front of the store's cache.
    public let hot: HotModelCache
    /// How many entries opened from the archives are kept, and for how long they are trusted.
    public let archiveCache: ArchiveCachePolicy
    /// Conversions and downloads run since start (each shared one counted once).
    public let counters = WorkCounters()
    /// RCSB searches kept a minute and shared while under way.
    public let searches = SearchCache()
    let logger: Logger
    let fetches = SharedWork<MoleculeRecord>()
    /// One archive-cache entry stored at a time, after room is made for it (`ArchiveCache.swift`).
    let archiveCacheWrites = WorkLimiter(width: 1, what: "archive cache writes")
    private let conversions = SharedWork<CachedModel>()
    /// Designs and their files being made, by recipe and cache key (`Designs.swift`).
    let designsUnderWay = SharedWork<Design>()
    let designFilesUnderWay = SharedWork<[UInt8]>()

    public init(store: any LibraryStore, archive: ArchiveClient, limiter: WorkLimiter = WorkLimiter(),
                maxUploadBytes: Int = 64 << 20, hotCacheBytes: Int = 128 << 20, quota: StorageQuota = .unlimited,
                archiveCache: ArchiveCachePolicy = ArchiveCachePolicy(), logger: Logger = Logger(label: "proteinar.library")) {
        self.store = store; self.archive = archive; self.limiter = limiter; self.maxUploadBytes = maxUploadBytes; self.quota = quota
        self.hot = HotModelCache(limitBytes: hotCacheBytes)
        self.archiveCache = archiveCache; self.logger = logger
    }

    // MARK: Adding molecules

    /// Reads `bytes` (any supported format, gzip or not), then stores the molecule and its file in
    /// one transaction. The id defaults to `upload-` and the start of the file's hash. `owner`: the
    /// account that adds it, which keeps it in its list; it owns uploads and designs (and may
    /// delete them), which count against its storage quota.
    public func add(bytes: [UInt8], fileName: String, id: String? = nil, source: MoleculeSource = .upload,
                    description: String? = nil, titleFallback: String? = nil, owner: String? = nil, inLibrary: Bool = true,
                    progress: ProgressHandler? = nil) async throws -> MoleculeRecord {
        // Uploads are held to the upload limit; files from the archives were already held to the
        // client's download limit. Inflated files get eight times as much room, within 1 GiB.
        let limit = source == .upload ? maxUploadBytes : max(maxUploadBytes, 256 << 20)
        guard bytes.count <= limit else {
            throw LibraryError.tooLarge("\(fileName): \(bytes.count) bytes is more than the \(limit) accepted")
        }
        let inflatedLimit = Self.inflatedLimit(limit)
        guard !bytes.isEmpty else { throw LibraryError.unreadable("\(fileName): the file is empty") }
        if let id { try Self.checkLibraryID(id) }
        progress?(WorkProgress(stage: "read", message: "reading \(fileName)"))
        let prepared = try await limiter.run { () throws -> (MoleculeRecord, [UInt8]) in
            let plain = try Self.inflate(bytes, fileName: fileName, limit: inflatedLimit)
            let structure: Structure
            do {
                structure = try StructureReader.read(bytes: plain, fileName: fileName)
            } catch let error as StructureReadError where error.isTooLarge {
                throw LibraryError.tooLarge("\(error)")
            } catch {
                throw LibraryError.unreadable("\(error)")
            }
            guard let model = structure.models.first, model.atoms.count > 0 else {
                throw LibraryError.unreadable("\(fileName): \(structure.noAtomsMessage)")
            }
            let hash = Hashing.sha256Hex(plain)
            let summary = StructureSummary(structure)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let json = String(decoding: try encoder.encode(summary), as: UTF8.self)
            let title = summary.title.isEmpty ? (titleFallback ?? fileName) : summary.title
            let record = MoleculeRecord(
                id: id ?? "upload-\(hash.prefix(12))", source: source, title: title, description: description,
                method: summary.method.isEmpty ? nil : summary.method, resolution: summary.resolution,
                organism: summary.organisms.isEmpty ? nil : summary.organisms.joined(separator: "; "),
                atoms: summary.atoms, residues: summary.residues, chains: summary.chains.count, format: summary.format,
                fileHash: hash, fileSize: plain.count, summaryJSON: json,
                ownerID: source == .upload || source == .design ? owner : nil, inLibrary: inLibrary)
            let compressed = StructureReader.isGzip(bytes) ? bytes : try Self.gzip(plain)
            return (record, compressed)
        }
        // The same file uploaded again is the molecule already there (its dates and cached models kept).
        if source == .upload, let existing = try await store.molecule(id: prepared.0.id), existing.fileHash == prepared.0.fileHash {
            if let owner { try await store.keep(moleculeID: existing.id, accountID: owner) }
            return existing
        }
        if source != .starter && inLibrary { try await checkQuota(adding: prepared.0) }
        progress?(WorkProgress(stage: "store", message: "storing \(prepared.0.id)"))
        if inLibrary {
            try await store.add(prepared.0, compressedFile: prepared.1)
        } else {
            try await addToArchiveCache(prepared.0, compressedFile: prepared.1)
        }
        if let owner { try await store.keep(moleculeID: prepared.0.id, accountID: owner) }
        return prepared.0
    }

    /// Refuses a molecule that would take its owner, or the library, past the quota.
    private func checkQuota(adding record: MoleculeRecord) async throws {
        if let owner = record.ownerID, quota.accountBytes < .max {
            let used = try await store.storedBytes(ownerID: owner)
            guard used + record.fileSize <= quota.accountBytes else {
                throw LibraryError.quotaExceeded("your molecules take \(used >> 20) MB of the \(quota.accountBytes >> 20) MB an account may keep; "
                                                 + "delete some of your uploads or designs first")
            }
        }
        if quota.libraryBytes < .max {
            let used = try await store.storedBytes(ownerID: nil)
            guard used + record.fileSize <= quota.libraryBytes else {
                throw LibraryError.libraryFull("the library is full (\(used >> 20) MB of \(quota.libraryBytes >> 20) MB); ask the administrator")
            }
        }
    }

    /// The most an upload of `limit` bytes may inflate to: eight times as much, within 256 MiB (a
    /// file that large is more than a phone shows, and inflating is done once, in memory).
    static func inflatedLimit(_ limit: Int) -> Int { min(limit * 8, 256 << 20) }

    /// Keeps a molecule in the account's list ("My molecules"); an archive-cache entry kept so
    /// moves into the library, where nothing evicts it.
    public func keep(id: String, account: String) async throws {
        try await moveIntoLibrary(id: id)
        try await store.keep(moleculeID: id, accountID: account)
    }

    /// Takes a molecule off the account's list; false when it was not on it.
    public func unkeep(id: String, account: String) async throws -> Bool {
        try Self.checkLibraryID(id)
        return try await store.unkeep(moleculeID: id, accountID: account)
    }

    /// Adds the entry to the library: moved in from the archive cache when someone opened it
    /// lately, else fetched from the RCSB PDB or AlphaFold DB and stored. Concurrent fetches of one
    /// entry share a single download. `account` keeps it in its list.
    public func fetch(_ id: EntryID, for account: String? = nil, progress: ProgressHandler? = nil) async throws -> MoleculeRecord {
        var record = try await store.molecule(id: id.libraryID)
        if record == nil {
            record = try await fetchShared(id, admission: AdmitAll(), progress: progress)
        }
        guard var record else { throw LibraryError.notFound("no molecule '\(id.libraryID)' in the library") }
        if !record.inLibrary, try await store.moveIntoLibrary(id: record.id) { record.inLibrary = true }
        if let account { try await store.keep(moleculeID: record.id, accountID: account) }
        return record
    }

    /// The entry downloaded and stored (in the library, or in the archive cache when
    /// `inLibrary` is false), once however many ask at the same time.
    func fetchShared(_ id: EntryID, inLibrary: Bool = true, admission: some Admission, progress: ProgressHandler?) async throws -> MoleculeRecord {
        try await fetches.run(id.libraryID, admission: admission, progress: progress) { [self] progress in
            if let existing = try await store.molecule(id: id.libraryID) { return existing }
            let (bytes, fileName, source, title) = try await download(id, progress: progress)
            return try await add(bytes: bytes, fileName: fileName, id: id.libraryID, source: source, titleFallback: title,
                                 inLibrary: inLibrary, progress: progress)
        }
    }

    /// The entry's file from its archive: bytes, file name, source and a title for files without one.
    func download(_ id: EntryID, progress: ProgressHandler?) async throws -> ([UInt8], String, MoleculeSource, String?) {
        counters.countDownload()
        progress?(WorkProgress(stage: "download", message: "downloading \(id.libraryID)", fraction: 0))
        let onBytes: DownloadProgress = { received, total in
            progress?(WorkProgress(stage: "download", message: "downloaded \(received) bytes",
                                   fraction: total.map { Double(received) / Double(max($0, 1)) }))
        }
        do {
            switch id {
            case .uniProt:
                let model = try await archive.alphaFold(id, progress: onBytes)
                return (model.file.bytes, model.file.fileName, .alphafold, model.description.map { "AlphaFold model of \($0)" })
            case .pdb, .extendedPDB:
                let file = try await archive.download(id, progress: onBytes)
                return (file.bytes, file.fileName, .rcsb, nil)
            }
        } catch let error as ArchiveError {
            switch error {
            case .notFound(let m): throw LibraryError.notFound(m)
            case .timedOut(let m): throw LibraryError.archiveTimedOut(m)
            case .unavailable(let m), .badResponse(let m): throw LibraryError.archiveUnavailable(m)
            }
        }
    }

    /// Imports the bundled starter library when the library is empty; returns how many were added.
    public func installStarterLibrary(progress: ProgressHandler? = nil) async throws -> Int {
        guard try await store.count() == 0 else { return 0 }
        var added = 0
        for entry in try StarterLibrary.entries() {
            progress?(WorkProgress(stage: "store", message: "starter library: \(entry.id)",
                                   fraction: Double(added) / Double(StarterLibrary.count)))
            // Files without a title (some mmCIF writers drop it) are named by the description's first clause.
            let fallback = String(entry.description.prefix { $0 != ":" })
            _ = try await add(bytes: entry.bytes, fileName: entry.fileName, id: entry.id, source: .starter,
                              description: entry.description, titleFallback: fallback)
            added += 1
        }
        return added
    }

    // MARK: Reading

    public func molecule(id: String) async throws -> MoleculeRecord {
        try Self.checkLibraryID(id)
        guard let record = try await store.molecule(id: id) else { throw LibraryError.notFound("no molecule '\(id)' in the library") }
        return record
    }

    /// The record, or nil when the library has no molecule `id`.
    public func record(id: String) async throws -> MoleculeRecord? { try await store.molecule(id: id) }

    /// A page of the library.
    public func molecules(_ query: MoleculeQuery) async throws -> MoleculePage { try await store.molecules(query) }

    /// Notes that `id` was looked at (the library sorts by it).
    public func touch(id: String) async throws { try await store.touch(id: id) }

    /// How many molecules the library holds.
    public func count() async throws -> Int { try await store.count() }

    /// The original file as stored (gzip-compressed) and its record: what a client that accepts
    /// gzip is sent, with nothing inflated.
    public func storedFile(id: String) async throws -> (MoleculeRecord, [UInt8]) {
        let record = try await molecule(id: id)
        guard let gz = try await store.compressedFile(moleculeID: id) else { throw LibraryError.notFound("no file stored for '\(id)'") }
        return (record, gz)
    }

    /// The original file, uncompressed, and its record.
    public func originalFile(id: String) async throws -> (MoleculeRecord, [UInt8]) {
        let record = try await molecule(id: id)
        guard let gz = try await store.compressedFile(moleculeID: id) else { throw LibraryError.notFound("no file stored for '\(id)'") }
        let plain = try await WorkLimiter.offload { try StructureReader.decompressGzip(gz, fileName: id) }
        return (record, plain)
    }

    /// The model (from the cache, or made and cached). Identical requests made at the same time
    /// share one conversion: only the one that starts it passes `admission`, and all hear its progress.
    public func model(id: String, request: ModelRequest, admission: some Admission = AdmitAll(),
                      progress: ProgressHandler? = nil) async throws -> CachedModel {
        let record = try await molecule(id: id)
        return try await model(of: record, request: request, key: request.cacheKey(fileHash: try await source(of: record, request)),
                               admission: admission, progress: progress)
    }

    /// What a request's model is made from: the molecule's file hash, and its partner's too when it
    /// has one (`compare=`, `morph=`: then a change to either file makes a new model).
    private func source(of record: MoleculeRecord, _ request: ModelRequest) async throws -> String {
        guard let partner = request.options.partner else { return record.fileHash }
        return record.fileHash + "+" + (try await partnerRecord(partner.id).fileHash)
    }

    /// A partner must be in the library (the page opens an entry first, as for viewing it).
    private func partnerRecord(_ id: String) async throws -> MoleculeRecord {
        do { return try await molecule(id: id) } catch LibraryError.notFound {
            throw LibraryError.notFound("no molecule '\(id)' in the library to compare with; open or add it first")
        }
    }

    /// The model as a buffer ready to send: from memory when it was served lately, else from the
    /// store's cache or made (see `model`), then kept in memory.
    public func servedModel(id: String, request: ModelRequest, admission: some Admission = AdmitAll()) async throws -> HotModelCache.Entry {
        let record = try await molecule(id: id)
        hot.remember(fileHash: record.fileHash, of: id)
        let key = request.cacheKey(fileHash: try await source(of: record, request))
        if let entry = hot.get(key) { return entry }
        return hot.put(try await model(of: record, request: request, key: key, admission: admission))
    }

    /// The model of a record the caller has already read.
    public func model(of record: MoleculeRecord, request: ModelRequest, progress: ProgressHandler? = nil) async throws -> CachedModel {
        try await model(of: record, request: request, key: request.cacheKey(fileHash: try await source(of: record, request)),
                        admission: AdmitAll(), progress: progress)
    }

    /// The model under its cache key `key` (the caller's `request.cacheKey(fileHash:)`).
    private func model(of record: MoleculeRecord, request: ModelRequest, key: String, admission: some Admission,
                       progress: ProgressHandler? = nil) async throws -> CachedModel {
        let id = record.id
        if let cached = try await store.cachedModel(key: key) { return cached }
        return try await conversions.run(key, admission: admission, progress: progress) { [self] progress in
            // Made meanwhile by a conversion that ended just before this one started.
            if let cached = try await store.cachedModel(key: key) { return cached }
            // Reading the input, meshing and storing the result all hold the slot, so memory is
            // bounded by the limiter's width however many requests wait.
            var found: MoleculeRecord?
            if let id = request.options.partner?.id { found = try await partnerRecord(id) }
            let partner = found
            return try await limiter.withSlot(cost: record.atoms + (partner?.atoms ?? 0)) { [self] in
                let started = ContinuousClock.now
                counters.countConversion()
                let (_, plain) = try await originalFile(id: id)
                var read: [UInt8]?
                if let partner { read = try await originalFile(id: partner.id).1 }
                let otherPlain = read
                progress(WorkProgress(stage: "mesh", message: "building \(request.options.representation.rawValue) for \(id)"
                                      + (request.options.partner.map { " with \($0.id)" } ?? "")))
                let bytes = try await WorkLimiter.offload {
                    guard let otherPlain, let partner else { return try Self.convert(plain, fileName: id, request: request) }
                    return try Comparisons.make(Self.structure(plain, fileName: id), id: id,
                                                with: Self.structure(otherPlain, fileName: partner.id),
                                                names: (Self.name(of: record), Self.name(of: partner)), request: request)
                }
                progress(WorkProgress(stage: "write", message: "wrote \(bytes.count) bytes", fraction: 1))
                let model = CachedModel(key: key, moleculeID: id, mediaType: request.output.mediaType, bytes: bytes)
                try await store.cacheModel(model)
                logger.info("converted \(id) \(key.prefix(16)) in \((ContinuousClock.now - started).milliseconds) ms")
                return model
            }
        }
    }

    /// A model served lately, from memory: the cheap path of repeated requests, which converts
    /// nothing and so takes no share of the client's conversions. The store is read only when the
    /// id's file hash was not read in the last `HotModelCache.fileTrust`; nil when the model is not
    /// in memory (then `servedModel` makes or loads it).
    public func hotModel(id: String, request: ModelRequest) async throws -> HotModelCache.Entry? {
        if let partner = request.options.partner?.id {
            // Both files' hashes read lately, or the store read for them.
            guard let hash = hot.recentFileHash(of: id), let other = hot.recentFileHash(of: partner) else {
                let record = try await molecule(id: id)
                hot.remember(fileHash: record.fileHash, of: id)
                let other = try await partnerRecord(partner)
                hot.remember(fileHash: other.fileHash, of: partner)
                return hot.get(request.cacheKey(fileHash: record.fileHash + "+" + other.fileHash))
            }
            return hot.get(request.cacheKey(fileHash: hash + "+" + other))
        }
        if let hash = hot.recentFileHash(of: id) { return hot.get(request.cacheKey(fileHash: hash)) }
        let record = try await molecule(id: id)
        hot.remember(fileHash: record.fileHash, of: id)
        return hot.get(request.cacheKey(fileHash: record.fileHash))
    }

    public func remove(id: String) async throws {
        try Self.checkLibraryID(id)
        // After the removal (or its failure): also drops what a request read meanwhile.
        defer { hot.forgetFile(of: id) }
        guard try await store.remove(id: id) else { throw LibraryError.notFound("no molecule '\(id)' in the library") }
    }

    // MARK: Helpers

    /// How people know a molecule: an entry by its id, an upload by its file's name (its title).
    static func name(of record: MoleculeRecord) -> String { record.source == .upload && !record.title.isEmpty ? record.title : record.id }

    /// Library ids are letters, digits, `-` and `_` (no path separators, no dots), at most 64.
    public static func isLibraryID(_ id: String) -> Bool {
        !id.isEmpty && id.count <= 64 && id.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
    }

    public static func checkLibraryID(_ id: String) throws {
        guard isLibraryID(id) else {
            throw LibraryError.badRequest("'\(id.prefix(80))' is not a library id (letters, digits, - and _, at most 64)")
        }
    }

    static func convert(_ plain: [UInt8], fileName: String, request: ModelRequest) throws -> [UInt8] {
        if request.output == .identify { return try identifyTable(structure(plain, fileName: fileName)) }
        if request.output == .interactions { return try interactions(structure(plain, fileName: fileName)) }
        return encode(try scene(plain, fileName: fileName, options: request.options).0, as: request.output)
    }

    /// The identify table of a structure as the API sends it.
    public static func identifyTable(_ structure: Structure) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return Array(try encoder.encode(IdentifyTable(structure)))
    }

    /// Each ligand's binding site and interactions, and where chains touch, as the API sends them (`proteinar interactions --json`).
    public static func interactions(_ structure: Structure) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return Array(try encoder.encode(InteractionReport(structure, sites: InteractionFinder.sites(in: structure),
                                                          interfaces: ChainInterfaces.find(in: structure))))
    }

    /// The scene as the file or picture `output` names (an OBJ refers to its materials as `mtlFileName`).
    public static func encode(_ scene: TriangleScene, as output: ModelRequest.Output, mtlFileName: String = "model.mtl") -> [UInt8] {
        switch output {
        case .file(let format, let glb): return format.encode(scene, mtlFileName: mtlFileName, glb: glb)
        case .picture(let pixels): return SoftwareRenderer.render(scene, width: pixels, height: pixels).pngData()
        // A scene names no atoms: the table is made from the structure (`convert`, `Designs.encode`).
        case .identify, .interactions, .comparison: return Array("{}".utf8)
        }
    }

    /// File bytes → structure → scene: the one way the library turns a file into something to draw.
    /// A file that cannot be read is `unreadable`; options that cannot draw it are a `badRequest`.
    public static func scene(_ plain: [UInt8], fileName: String, options: MoleculeSceneOptions) throws -> (TriangleScene, MoleculeSceneReport) {
        let structure = try structure(plain, fileName: fileName)
        do { return try MoleculeSceneBuilder.build(structure, options: options) } catch let e as MeshOptionError {
            throw LibraryError.badRequest(e.description)
        }
    }

    /// File bytes → structure; a file that cannot be read is `unreadable`.
    static func structure(_ plain: [UInt8], fileName: String) throws -> Structure {
        do { return try StructureReader.read(bytes: plain, fileName: fileName) } catch let error as StructureReadError where error.isTooLarge {
            throw LibraryError.tooLarge("\(error)")
        } catch { throw LibraryError.unreadable("\(error)") }
    }

    /// `bytes` inflated when gzip, at most `limit` bytes: a small upload must not become gigabytes.
    static func inflate(_ bytes: [UInt8], fileName: String, limit: Int) throws -> [UInt8] {
        guard StructureReader.isGzip(bytes) else { return bytes }
        do {
            return try StructureReader.decompressGzip(bytes, fileName: fileName, maximumSize: limit)
        } catch let error as StructureReadError where error.isTooLarge {
            throw LibraryError.tooLarge("\(error)")
        } catch {
            throw LibraryError.unreadable("\(error)")
        }
    }

    static func gzip(_ bytes: [UInt8]) throws -> [UInt8] {
        var buffer = ByteBuffer(bytes: bytes)
        let out = try buffer.compress(with: .gzip())
        return Array(out.readableBytesView)
    }
}

