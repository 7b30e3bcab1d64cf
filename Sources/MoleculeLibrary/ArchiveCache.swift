import Foundation
import NIOConcurrencyHelpers
import PDBArchive
import Storage

/// How the archive cache behaves: the entries anyone opened from the RCSB PDB or AlphaFold DB
/// without adding them to the library.
public struct ArchiveCachePolicy: Sendable {
    /// The most the entries' original files (uncompressed) may take together; the least recently
    /// viewed leave first. Library molecules are never counted or removed.
    public var limitBytes: Int
    /// After this many seconds an entry is checked against the archive when next opened (entries
    /// are obsoleted and replaced in the PDB).
    public var revalidateAfter: TimeInterval

    public init(limitBytes: Int = 1 << 30, revalidateAfter: TimeInterval = 7 * 24 * 3600) {
        self.limitBytes = limitBytes; self.revalidateAfter = revalidateAfter
    }
}

/// Figures of work done since the server started: each shared conversion or download once.
public final class WorkCounters: Sendable {
    public struct Figures: Sendable, Equatable {
        public var conversionsRun = 0
        public var archiveDownloads = 0
    }
    private let figures = NIOLockedValueBox(Figures())

    public init() {}
    public var now: Figures { figures.withLockedValue { $0 } }
    func countConversion() { figures.withLockedValue { $0.conversionsRun += 1 } }
    func countDownload() { figures.withLockedValue { $0.archiveDownloads += 1 } }
}

extension LibraryService {
    /// Opens an archive entry for anyone, account or not: the library's molecule when it has one,
    /// else the archive cache's (checked against the archive once older than the policy's age),
    /// else downloaded into the archive cache, which is then trimmed to its bound. Only a new
    /// download passes `admission` (the client's budget of downloads); people opening an entry
    /// that is being downloaded wait for that one download.
    public func open(_ id: EntryID, admission: some Admission = AdmitAll(), progress: ProgressHandler? = nil) async throws -> MoleculeRecord {
        if let existing = try await store.molecule(id: id.libraryID) {
            try? await store.touch(id: existing.id)
            guard !existing.inLibrary, Date().timeIntervalSince(existing.confirmedAt) >= archiveCache.revalidateAfter else { return existing }
            return try await revalidate(existing, id: id, admission: admission, progress: progress)
        }
        return try await fetchShared(id, inLibrary: false, admission: admission, progress: progress)
    }

    /// Stores an entry in the archive cache once the least recently viewed entries have made room
    /// for it, one entry at a time, so the cache never holds more than its bound, even for a
    /// moment. An entry larger than the whole cache is refused.
    func addToArchiveCache(_ record: MoleculeRecord, compressedFile: [UInt8]) async throws {
        let limit = archiveCache.limitBytes
        guard record.fileSize <= limit else {
            throw LibraryError.tooLarge("\(record.id)'s file (\(Self.megabytes(record.fileSize))) is larger than this server's archive cache "
                                        + "(\(Self.megabytes(limit))); someone with an account can add it to the library")
        }
        try await archiveCacheWrites.withSlot { [self] in
            let removed = try await store.evictArchiveCache(limitBytes: limit - record.fileSize)
            for id in removed { hot.forgetFile(of: id) }
            if !removed.isEmpty {
                logger.info("archive cache: removed \(removed.count) least recently viewed (\(removed.prefix(5).joined(separator: ", "))) for \(record.id)")
            }
            try await store.add(record, compressedFile: compressedFile)
        }
    }

    /// Moves an archive-cache entry into the library (kept for good); nothing for a library molecule.
    public func moveIntoLibrary(id: String) async throws {
        let record = try await molecule(id: id)
        if !record.inLibrary { _ = try await store.moveIntoLibrary(id: id) }
    }

    /// The archive cache's entries and bytes.
    public func archiveCacheSize() async throws -> ArchiveCacheSize { try await store.archiveCacheSize() }

    /// Asks the archive for the entry again: unchanged, it is marked as checked; changed, it is
    /// replaced (its models are made again from the new file); gone from the archive (obsoleted),
    /// it leaves the cache. When the archive cannot answer, or this client may not download now,
    /// the copy held is good enough to look at.
    private func revalidate(_ cached: MoleculeRecord, id: EntryID, admission: some Admission,
                            progress: ProgressHandler?) async throws -> MoleculeRecord {
        do {
            return try await fetches.run(id.libraryID, admission: admission, progress: progress) { [self] progress in
                let (bytes, fileName, source, title) = try await download(id, progress: progress)
                let limit = max(maxUploadBytes, 256 << 20)
                let plain = try await WorkLimiter.offload { try Self.inflate(bytes, fileName: fileName, limit: Self.inflatedLimit(limit)) }
                if Hashing.sha256Hex(plain) == cached.fileHash {
                    let now = Date()
                    try await store.markChecked(id: cached.id, at: now)
                    var checked = cached
                    checked.checkedAt = now
                    return checked
                }
                logger.info("archive cache: \(cached.id) changed in the archive; replacing it")
                hot.forgetFile(of: cached.id)
                return try await add(bytes: bytes, fileName: fileName, id: cached.id, source: source, titleFallback: title,
                                     inLibrary: false, progress: progress)
            }
        } catch LibraryError.notFound(let message) {
            logger.info("archive cache: \(cached.id) is no longer in the archive; removing it")
            if let current = try await store.molecule(id: cached.id), !current.inLibrary {
                _ = try await store.remove(id: cached.id)
                hot.forgetFile(of: cached.id)
            }
            throw LibraryError.notFound(message)
        } catch let error as LibraryError {
            logger.info("archive cache: \(cached.id) not checked (\(error)); serving the copy held")
            return cached
        }
    }

    /// Bytes as megabytes with one decimal ("1.2 MB"), for messages that compare two sizes.
    static func megabytes(_ bytes: Int) -> String {
        let tenths = (bytes * 10 + (1 << 19)) >> 20
        return "\(tenths / 10).\(tenths % 10) MB"
    }

}

extension Duration {
    /// Whole milliseconds, for log lines.
    var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
