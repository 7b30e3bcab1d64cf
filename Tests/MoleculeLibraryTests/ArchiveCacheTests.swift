import Foundation
import Storage
import MoleculeLibrary
import PDBArchive
import Testing
import TestArchive
import TestSupport

/// The archive cache (`LibraryService.open`): entries anyone opened, kept apart from the library,
/// bounded in bytes with the least recently viewed out first, checked against the archive after an
/// age, and moved into the library when someone adds them. On SQLite and on PostgreSQL.
@Suite("Library service: the archive cache")
struct ArchiveCacheTests {
    static func library(_ kind: StoreKind, policy: ArchiveCachePolicy) async throws -> (LibraryService, FixtureArchive, @Sendable () async -> Void) {
        let archive = try await FixtureArchive()
        let (store, cleanup) = try await TestStores.open(kind)
        try await store.migrate()
        let client = ArchiveClient(endpoints: ArchiveEndpoints(allAt: archive.baseURL),
                                   retry: RetryPolicy(attempts: 3, firstDelay: .milliseconds(20), timeout: .seconds(4)))
        return (LibraryService(store: store, archive: client, archiveCache: policy), archive, { archive.stop(); await cleanup() })
    }

    /// The uncompressed size of a fixture the archive serves gzipped.
    static func plainSize(_ path: String) throws -> Int {
        try StructureReaderSize.inflated(try #require(FixtureArchive.files[path]))
    }

    @Test("a tiny bound: the least recently viewed entry leaves first, library molecules stay, an evicted entry is fetched again",
          arguments: StoreKind.allCases)
    func eviction(kind: StoreKind) async throws {
        // Room for 5PTI and 1AKE together, not for a third entry beside them.
        let pti = try Self.plainSize("/download/5PTI.cif.gz"), ake = try Self.plainSize("/download/1AKE.pdb.gz")
        let (service, archive, cleanup) = try await Self.library(kind, policy: ArchiveCachePolicy(limitBytes: pti + ake + 100))
        // A library molecule, far larger than the bound: never counted, never evicted.
        let library = try await service.fetch(try #require(EntryID("2XHE")))
        #expect(library.inLibrary && library.fileSize > pti + ake)

        let first = try await service.open(try #require(EntryID("5PTI")))
        #expect(!first.inLibrary && first.source == .rcsb)
        try await Task.sleep(for: .milliseconds(20))
        _ = try await service.open(try #require(EntryID("1AKE")))
        #expect(try await service.archiveCacheSize() == ArchiveCacheSize(entries: 2, bytes: pti + ake))
        // The library lists only its own molecules; the cache's are there to be opened all the same.
        #expect(try await service.molecules(MoleculeQuery()).molecules.map(\.id) == ["2XHE"])
        #expect(try await service.count() == 1)
        #expect(try await service.molecule(id: "5PTI").inLibrary == false)

        // 1AKE is viewed again, then a third entry arrives: 5PTI, viewed least lately, leaves.
        try await Task.sleep(for: .milliseconds(20))
        try await service.touch(id: "1AKE")
        try await Task.sleep(for: .milliseconds(20))
        _ = try await service.open(try #require(EntryID("pdb_00005pti")))
        #expect(try await service.record(id: "5PTI") == nil)
        #expect(try await service.record(id: "1AKE") != nil)
        #expect(try await service.record(id: "pdb_00005pti") != nil)
        #expect(try await service.record(id: "2XHE")?.inLibrary == true)
        #expect(try await service.archiveCacheSize().bytes <= pti + ake + 100)
        // Its file went with it (2XHE's and the others' stay).
        #expect(try await service.store.compressedFile(moleculeID: "2XHE") != nil)

        // The next visit fetches 5PTI again (and the other one now leaves instead).
        #expect(await archive.log.count("/download/5PTI.cif.gz") == 1)
        let again = try await service.open(try #require(EntryID("5PTI")))
        #expect(again.fileHash == first.fileHash)
        #expect(await archive.log.count("/download/5PTI.cif.gz") == 2)
        #expect(try await service.record(id: "1AKE") == nil)
        #expect(try await service.record(id: "2XHE") != nil)
        await cleanup()
    }

    @Test("an entry larger than the whole cache is refused with the reason, and nothing of it is kept", arguments: [StoreKind.sqlite])
    func tooLargeForTheCache(kind: StoreKind) async throws {
        let (service, _, cleanup) = try await Self.library(kind, policy: ArchiveCachePolicy(limitBytes: 1000))
        let error = await #expect(throws: LibraryError.self) { try await service.open(try #require(EntryID("5PTI"))) }
        #expect(error?.description.contains("archive cache") == true)
        #expect(try await service.record(id: "5PTI") == nil)
        await cleanup()
    }

    @Test("opening an entry again: no download while it is fresh; after the age it is checked, and kept when unchanged",
          arguments: StoreKind.allCases)
    func revalidation(kind: StoreKind) async throws {
        let (fresh, archive, cleanup) = try await Self.library(kind, policy: ArchiveCachePolicy())
        let opened = try await fresh.open(try #require(EntryID("5PTI")))
        _ = try await fresh.open(try #require(EntryID("5PTI")))
        #expect(await archive.log.count("/download/5PTI.cif.gz") == 1)
        #expect(opened.checkedAt == nil)

        // The same store, read by a server that trusts an entry for no time at all.
        let checking = LibraryService(store: fresh.store, archive: fresh.archive, archiveCache: ArchiveCachePolicy(revalidateAfter: 0))
        let checked = try await checking.open(try #require(EntryID("5PTI")))
        #expect(await archive.log.count("/download/5PTI.cif.gz") == 2)
        #expect(checked.fileHash == opened.fileHash && checked.checkedAt != nil)
        #expect(try await checking.record(id: "5PTI")?.checkedAt != nil)
        await cleanup()
    }

    @Test("adding an opened entry to the library moves it (no second download) and it is never evicted after", arguments: StoreKind.allCases)
    func addToLibrary(kind: StoreKind) async throws {
        let pti = try Self.plainSize("/download/5PTI.cif.gz")
        let (service, archive, cleanup) = try await Self.library(kind, policy: ArchiveCachePolicy(limitBytes: pti + 100))
        _ = try await service.open(try #require(EntryID("5PTI")))
        let added = try await service.fetch(try #require(EntryID("5PTI")))
        #expect(added.inLibrary)
        #expect(await archive.log.count("/download/5PTI.cif.gz") == 1)
        // Two more entries pass through the cache: 5PTI, in the library now, stays.
        _ = try await service.open(try #require(EntryID("pdb_00005pti")))
        _ = try await service.open(try #require(EntryID("7FLK")))
        #expect(try await service.record(id: "5PTI")?.inLibrary == true)
        #expect(try await service.record(id: "pdb_00005pti") == nil)
        #expect(try await service.archiveCacheSize().entries == 1)
        await cleanup()
    }
}

/// The inflated size of a gzip file (what the library counts).
enum StructureReaderSize {
    static func inflated(_ bytes: [UInt8]) throws -> Int {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/gzip")
        p.arguments = ["-dc"]
        let input = Pipe(), output = Pipe()
        p.standardInput = input; p.standardOutput = output
        try p.run()
        let writer = Thread { input.fileHandleForWriting.write(Data(bytes)); try? input.fileHandleForWriting.close() }
        writer.start()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return out.count
    }
}
