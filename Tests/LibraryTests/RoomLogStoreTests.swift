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
}
