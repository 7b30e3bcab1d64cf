import Foundation
import Storage
import TestSupport
import Testing

/// Rooms in both stores: settings, an append-only numbered log (a number taken once), snapshots.
@Suite("Room logs")
struct RoomLogStoreTests {
    @Test("rooms, the numbered log and snapshots round-trip; a taken number is refused", arguments: StoreKind.allCases)
    func log(kind: StoreKind) async throws {
        let (store, cleanup) = try await TestStores.open(kind, cacheLimit: 1 << 20)
        defer { Task { await cleanup() } }
        try await store.migrate()
        try await store.migrate()
        try await store.saveRoom(id: "r1", settingsJSON: #"{"name":"first"}"#)
        try await store.saveRoom(id: "r1", settingsJSON: #"{"name":"renamed"}"#)
        #expect(try await store.createRoom(id: "r2", settingsJSON: "{}"))
        #expect(try await !store.createRoom(id: "r2", settingsJSON: #"{"taken":true}"#))
        #expect(try await store.room(id: "r2")?.settingsJSON == "{}")
        #expect(try await store.room(id: "r1")?.settingsJSON == #"{"name":"renamed"}"#)
        #expect(try await store.rooms().map(\.id) == ["r1", "r2"])
        #expect(try await store.room(id: "nope") == nil)

        for n in 1...25 {
            #expect(try await store.appendOperation(StoredRoomOperation(roomID: "r1", sequence: Int64(n), json: "{\"n\":\(n)}")))
        }
        #expect(try await !store.appendOperation(StoredRoomOperation(roomID: "r1", sequence: 7, json: "{\"other\":true}")))
        #expect(try await store.appendOperation(StoredRoomOperation(roomID: "r2", sequence: 7, json: "{}")))
        let tail = try await store.operations(roomID: "r1", after: 20, limit: 100)
        #expect(tail.map(\.sequence) == [21, 22, 23, 24, 25] && tail.first?.json == "{\"n\":21}")
        #expect(try await store.operations(roomID: "r1", after: 0, limit: 10).count == 10)
        #expect(try await store.operations(roomID: "r1", after: 6, limit: 1).first?.json == "{\"n\":7}")

        #expect(try await store.latestSnapshot(roomID: "r1") == nil)
        try await store.saveSnapshot(roomID: "r1", sequence: 20, json: "snap20")
        try await store.saveSnapshot(roomID: "r1", sequence: 10, json: "snap10")  // older: kept out
        let snapshot = try await store.latestSnapshot(roomID: "r1")
        #expect(snapshot?.sequence == 20 && snapshot?.json == "snap20")
    }

    @Test("a batch is stored whole or not at all; trimming keeps a history base and deletes up to it", arguments: StoreKind.allCases)
    func batchesAndTrimming(kind: StoreKind) async throws {
        let (store, cleanup) = try await TestStores.open(kind, cacheLimit: 1 << 20)
        defer { Task { await cleanup() } }
        try await store.migrate()
        #expect(try await store.createRoom(id: "r", settingsJSON: "{}"))
        func ops(_ range: ClosedRange<Int>) -> [StoredRoomOperation] {
            range.map { StoredRoomOperation(roomID: "r", sequence: Int64($0), json: "{\"n\":\($0)}") }
        }
        #expect(try await store.appendOperations(ops(1...10)))
        // 9...12 overlaps: nothing of it is stored, not even 11 and 12.
        #expect(try await !store.appendOperations(ops(9...12)))
        #expect(try await store.operations(roomID: "r", after: 0, limit: 100).map(\.sequence) == Array(1...10))
        #expect(try await store.appendOperations(ops(11...12)))

        #expect(try await store.historyBase(roomID: "r") == nil)
        #expect(try await store.historyBaseSequence(roomID: "r") == 0)
        try await store.trimOperations(roomID: "r", through: 8, baseJSON: "base8")
        try await store.trimOperations(roomID: "r", through: 5, baseJSON: "base5")  // older: the base stays
        #expect(try await store.historyBase(roomID: "r")?.json == "base8")
        #expect(try await store.historyBaseSequence(roomID: "r") == 8)
        #expect(try await store.operations(roomID: "r", after: 0, limit: 100).map(\.sequence) == [9, 10, 11, 12])
    }

    @Test("notices between servers: PostgreSQL delivers each channel's notices in order on one LISTEN; too long is refused")
    func notices() async throws {
        let (store, cleanup) = try await TestStores.open(.postgres, cacheLimit: 1 << 20)
        defer { Task { await cleanup() } }
        try await store.migrate()
        #expect(store.sharedByServers)
        let heard = Heard()
        let watch = Task { try? await store.watchNotices(on: ["proteinar_test_a", "proteinar_test_b"]) { await heard.add("\($0) \($1)") } }
        defer { watch.cancel() }
        // Notices sent before a LISTEN begins are not delivered: ping both channels until heard.
        try await eventually("both channels' LISTEN", every: .milliseconds(100)) {
            try await store.notify(channel: "proteinar_test_a", payload: "ping")
            try await store.notify(channel: "proteinar_test_b", payload: "ping")
            let lines = await heard.lines
            return lines.contains("proteinar_test_a ping") && lines.contains("proteinar_test_b ping")
        }
        try await store.notify(channel: "proteinar_test_b", payload: "1")
        try await store.notify(channel: "proteinar_test_a", payload: "2")
        try await eventually("the notices") { await heard.lines.filter { !$0.hasSuffix(" ping") }.count == 2 }
        #expect(await heard.lines.filter { !$0.hasSuffix(" ping") } == ["proteinar_test_b 1", "proteinar_test_a 2"])
        await #expect(throws: LibraryStoreError.self) {
            try await store.notify(channel: "proteinar_test_a", payload: String(repeating: "x", count: RoomNotice.maximumPayloadBytes + 1))
        }
    }

    @Test("a SQLite store (one server) is not shared: notices go nowhere and watching returns at once")
    func noNoticesOnSQLite() async throws {
        let (store, cleanup) = try await TestStores.open(.sqlite, cacheLimit: 1 << 20)
        defer { Task { await cleanup() } }
        try await store.migrate()
        #expect(!store.sharedByServers)
        try await store.notify(channel: "proteinar_test_a", payload: "nobody hears this")
        try await within(.seconds(5), "watchNotices to return") { try await store.watchNotices(on: ["proteinar_test_a"]) { _, _ in } }
    }
}

/// What a watch heard, in order.
private actor Heard {
    var lines: [String] = []
    func add(_ line: String) { lines.append(line) }
}
