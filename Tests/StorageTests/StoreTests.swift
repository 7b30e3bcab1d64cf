import Foundation
import Storage
import TestSupport
import Testing

/// The two stores behave alike: records, files, the model cache's size cap and LRU eviction.
@Suite("Library stores")
struct StoreTests {
    static func record(_ id: String, hash: String, title: String? = nil) -> MoleculeRecord {
        MoleculeRecord(id: id, source: .upload, title: title ?? "Test \(id)", atoms: 10, residues: 2, chains: 1, format: "pdb",
                       fileHash: hash, fileSize: 100, summaryJSON: "{}")
    }

    @Test("records and files round-trip; replacing and removing keep files consistent", arguments: StoreKind.allCases)
    func records(kind: StoreKind) async throws {
        let (store, cleanup) = try await TestStores.open(kind, cacheLimit: 1 << 20)
        try await store.migrate()
        try await store.migrate()  // a second start changes nothing
        try await store.add(Self.record("A1", hash: "h1"), compressedFile: [1, 2, 3])
        try await store.add(Self.record("B2", hash: "h1"), compressedFile: [1, 2, 3])  // same file, shared
        #expect(try await store.count() == 2)
        #expect(try await store.compressedFile(moleculeID: "B2") == [1, 2, 3])
        var replaced = Self.record("A1", hash: "h2")
        replaced.title = "Replaced"
        try await store.add(replaced, compressedFile: [4, 5])
        #expect(try await store.molecule(id: "A1")?.title == "Replaced")
        #expect(try await store.compressedFile(moleculeID: "A1") == [4, 5])
        #expect(try await store.compressedFile(moleculeID: "B2") == [1, 2, 3])
        #expect(try await store.remove(id: "B2"))
        #expect(try await !store.remove(id: "B2"))
        try await store.touch(id: "A1")
        #expect(try await store.molecule(id: "A1")?.lastViewedAt != nil)
        let page = try await store.molecules(MoleculeQuery(text: "repl"))
        #expect(page.total == 1 && page.molecules.first?.id == "A1")
        #expect(try await store.molecules(MoleculeQuery(text: "100%_")).total == 0)  // wildcards are literal
        await cleanup()
    }

    /// Each title holds a character LIKE treats specially; each decoy is what that character would
    /// match if it were not taken literally.
    @Test("search takes %, _ and \\ literally", arguments: StoreKind.allCases)
    func literalSearch(kind: StoreKind) async throws {
        let (store, cleanup) = try await TestStores.open(kind, cacheLimit: 1 << 20)
        try await store.migrate()
        let titles = [
            "percent": "Purity 100% by weight", "percent-decoy": "Purity 1000 by weight",
            "underscore": "Buffer pH_7 only", "underscore-decoy": "Buffer pH 7 only",
            "backslash": #"Path C:\temp kept"#, "backslash-decoy": "Path C:temp kept",
        ]
        for (id, title) in titles.sorted(by: { $0.key < $1.key }) {
            try await store.add(Self.record(id, hash: "h-\(id)", title: title), compressedFile: [1])
        }
        func found(_ text: String) async throws -> [String] {
            try await store.molecules(MoleculeQuery(text: text)).molecules.map(\.id).sorted()
        }
        #expect(try await found("Purity") == ["percent", "percent-decoy"])  // both are there to be found
        #expect(try await found("100%") == ["percent"])
        #expect(try await found("%") == ["percent"])
        #expect(try await found("pH_7") == ["underscore"])
        #expect(try await found("_") == ["underscore"])
        #expect(try await found(#"C:\temp"#) == ["backslash"])
        #expect(try await found(#"\"#) == ["backslash"])
        #expect(try await store.molecules(MoleculeQuery(text: "100%")).total == 1)
        await cleanup()
    }

    @Test("the model cache keeps under its cap, evicting the least recently used", arguments: StoreKind.allCases)
    func cacheEviction(kind: StoreKind) async throws {
        let (store, cleanup) = try await TestStores.open(kind, cacheLimit: 1000)
        try await store.migrate()
        try await store.add(Self.record("M1", hash: "h"), compressedFile: [0])
        // Uses are ordered by the time the store stamps them with: each step waits for the clock
        // to move on, so no two stamps are equal.
        for key in ["k1", "k2"] {
            try await store.cacheModel(CachedModel(key: key, moleculeID: "M1", mediaType: "model/gltf-binary", bytes: [UInt8](repeating: 7, count: 400)))
            try await wallClockTicks()
        }
        #expect(try await store.cachedModel(key: "k1") != nil)  // k1 is now the more recently used
        try await wallClockTicks()
        try await store.cacheModel(CachedModel(key: "k3", moleculeID: "M1", mediaType: "model/gltf-binary", bytes: [UInt8](repeating: 8, count: 400)))
        #expect(try await store.cacheSize() <= 1000)
        #expect(try await store.cachedModel(key: "k2") == nil)
        #expect(try await store.cachedModel(key: "k1")?.bytes.count == 400)
        #expect(try await store.cachedModel(key: "k3")?.bytes.first == 8)
        // A model for a molecule that is gone is not cached; removing a molecule drops its models.
        try await store.cacheModel(CachedModel(key: "k9", moleculeID: "NOPE", mediaType: "x", bytes: [1]))
        #expect(try await store.cachedModel(key: "k9") == nil)
        _ = try await store.remove(id: "M1")
        #expect(try await store.cacheSize() == 0)
        await cleanup()
    }
}
