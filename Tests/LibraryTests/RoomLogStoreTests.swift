import Foundation
import Library
import Testing
import TestSupport

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
}
