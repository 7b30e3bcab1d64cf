import Foundation
import Storage
import MoleculeLibrary
import PDBArchive
import Testing
import TestArchive
import TestSupport

/// `LibraryService.fetch` against the fixture archive (each test starts its own, so each sees the
/// archive's faults afresh), on SQLite and on PostgreSQL.
@Suite("Library service: fetching from the archive")
struct FetchTests {
    /// A library on a scratch store of `kind` that fetches from an archive of its own.
    static func library(_ kind: StoreKind) async throws -> (LibraryService, FixtureArchive, @Sendable () async -> Void) {
        let archive = try await FixtureArchive()
        let (store, cleanup) = try await TestStores.open(kind)
        try await store.migrate()
        let client = ArchiveClient(endpoints: ArchiveEndpoints(allAt: archive.baseURL),
                                   retry: RetryPolicy(attempts: 3, firstDelay: .milliseconds(20), timeout: .seconds(4)))
        return (LibraryService(store: store, archive: client), archive, { archive.stop(); await cleanup() })
    }

    /// Progress reports as they come, from any thread.
    final class Reports: @unchecked Sendable {
        private let lock = NSLock()
        private var items: [WorkProgress] = []
        func add(_ p: WorkProgress) { lock.withLock { items.append(p) } }
        var all: [WorkProgress] { lock.withLock { items } }
        /// The byte counts of "downloaded N bytes" reports, in order.
        var downloadedBytes: [Int] {
            all.filter { $0.stage == "download" }.compactMap { p in
                p.message.firstMatch(of: /downloaded (\d+) bytes/).flatMap { Int($0.1) }
            }
        }
    }

    @Test("a 503 is tried again: the archive answered 503 first, the entry arrives and is stored", arguments: StoreKind.allCases)
    func retryAfter503(kind: StoreKind) async throws {
        let (service, archive, cleanup) = try await Self.library(kind)
        let reports = Reports()
        let record = try await service.fetch(try #require(EntryID("7FLK")), progress: { reports.add($0) })
        #expect(record.id == "7FLK" && record.source == .rcsb)
        // Each form of the entry was refused once, then asked for again: BinaryCIF is not there,
        // the mmCIF file is.
        #expect(await archive.log.statuses("/7FLK.bcif.gz") == [503, 404])
        #expect(await archive.log.statuses("/download/7FLK.cif.gz") == [503, 200])
        #expect(try await service.store.molecule(id: "7FLK")?.fileHash == record.fileHash)
        #expect(reports.downloadedBytes.last == FixtureArchive.files["/download/7FLK.cif.gz"]?.count)
        // Asked again, the library has it: the archive is not asked.
        await archive.log.reset()
        #expect(try await service.fetch(try #require(EntryID("7FLK"))).fileHash == record.fileHash)
        #expect(await archive.log.count("/download/7FLK.cif.gz") == 0)
        await cleanup()
    }

    @Test("an archive that keeps failing is asked three times, then reported; a missing entry is not found; nothing is stored",
          arguments: StoreKind.allCases)
    func failures(kind: StoreKind) async throws {
        let (service, archive, cleanup) = try await Self.library(kind)
        let failing = await #expect(throws: LibraryError.self) { try await service.fetch(try #require(EntryID("5XXX"))) }
        if case .archiveUnavailable(let message)? = failing {
            #expect(message.contains("500") && message.contains("3 times"))
        } else {
            Issue.record("expected archiveUnavailable, got \(String(describing: failing))")
        }
        #expect(await archive.log.statuses("/5XXX.bcif.gz") == [500, 500, 500])
        let missing = await #expect(throws: LibraryError.self) { try await service.fetch(try #require(EntryID("9ZZZ"))) }
        if case .notFound(let message)? = missing {
            #expect(message.contains("9ZZZ"))
        } else {
            Issue.record("expected notFound, got \(String(describing: missing))")
        }
        #expect(await archive.log.statuses("/download/9ZZZ.pdb.gz") == [404])
        #expect(try await service.store.count() == 0)
        await cleanup()
    }
}
