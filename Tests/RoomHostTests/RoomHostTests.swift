import Foundation
import Storage
import RoomHost
import Rooms
import Testing
import TestSupport

/// Rooms hosted on a real store: order, live updates, resume, restarts from snapshot and log.
@Suite("Room host")
struct RoomHostTests {
    let teacher = Participant(id: "teacher")
    let student = Participant(id: "student")
    let stranger = Participant(id: "stranger")

    static func stroke(_ id: String) -> RoomOperation {
        .addStroke(id: id, points: [RoomPoint(0, 0, 0), RoomPoint(0.01, 0.02, 0)], color: "#3366ff", width: 0.004)
    }

    @Test("stored before acknowledged; a restarted host finds every acknowledged operation in order", arguments: StoreKind.allCases)
    func durability(kind: StoreKind) async throws {
        let (store, cleanup) = try await TestStores.open(kind, cacheLimit: 1 << 20)
        defer { Task { await cleanup() } }
        try await store.migrate()
        let host = RoomHost(store: store, snapshotInterval: 7)
        _ = try await host.create(RoomSettings(id: "class-1", name: "1AKE", ownerID: "teacher", members: ["student"]))
        let subscription = try await host.subscribe(to: "class-1", for: student)
        let initial = subscription.snapshot, updates = subscription.updates
        #expect(initial.sequence == 0)

        var acknowledged: [UInt64] = []
        for i in 0..<30 {
            let who = i % 3 == 0 ? student : teacher
            let outcome = try await host.submit(ClientOperation(clientOpID: "op\(i)", operation: Self.stroke("s\(i)")), by: who, to: "class-1")
            guard case .accepted(let logged) = outcome else { Issue.record("op\(i) not accepted"); continue }
            acknowledged.append(logged.sequence)
        }
        _ = try await host.submit(ClientOperation(clientOpID: "undo1", operation: .undo), by: student, to: "class-1")
        #expect(acknowledged == Array(1...30))
        // A resend is recognised; a stranger is refused and nothing changes.
        #expect(try await host.submit(ClientOperation(clientOpID: "op4", operation: Self.stroke("s4")), by: teacher, to: "class-1") == .duplicate(sequence: 5))
        await #expect(throws: RoomError.self) { try await host.submit(ClientOperation(clientOpID: "x", operation: Self.stroke("x")), by: stranger, to: "class-1") }

        // The subscriber saw every operation, in order.
        let seen = try await Self.first(31, of: updates)
        #expect(seen == Array(1...31))

        // A new host on the same store (a restarted server) loads snapshot + tail: the same room.
        let live = try await host.snapshot(of: "class-1", for: teacher)
        let restarted = RoomHost(store: store, snapshotInterval: 7)
        let reloaded = try await restarted.snapshot(of: "class-1", for: teacher)
        #expect(reloaded == live && reloaded.sequence == 31)
        // Snapshots are saved in the background: wait for the one at 28 (never a later one: the
        // next would be at 35).
        try await eventually("the snapshot at 28") { try await store.latestSnapshot(roomID: "class-1")?.sequence == 28 }
        #expect(try await store.latestSnapshot(roomID: "class-1")?.sequence == 28)
        #expect(try await restarted.submit(ClientOperation(clientOpID: "op29", operation: Self.stroke("s29")), by: teacher, to: "class-1")
                == .duplicate(sequence: 30))
        // A client that reconnects after sequence 25 gets 26...31, no gap and no duplicate.
        #expect(try await restarted.operations(in: "class-1", after: 25, for: student).map(\.sequence) == [26, 27, 28, 29, 30, 31])
        await #expect(throws: RoomError.self) { try await restarted.snapshot(of: "class-1", for: stranger) }
        await #expect(throws: RoomError.self) { try await restarted.snapshot(of: "nope", for: teacher) }
    }

    @Test("concurrent submissions to one room get consecutive numbers", arguments: [StoreKind.sqlite])
    func concurrency(kind: StoreKind) async throws {
        let (store, cleanup) = try await TestStores.open(kind, cacheLimit: 1 << 20)
        defer { Task { await cleanup() } }
        try await store.migrate()
        let host = RoomHost(store: store)
        _ = try await host.create(RoomSettings(id: "busy", name: "busy", ownerID: "teacher", members: ["student"]))
        let numbers = try await withThrowingTaskGroup(of: UInt64.self) { group in
            for i in 0..<40 {
                group.addTask {
                    let outcome = try await host.submit(ClientOperation(clientOpID: "c\(i)", operation: Self.stroke("s\(i)")),
                                                        by: i % 2 == 0 ? Participant(id: "teacher") : Participant(id: "student"), to: "busy")
                    if case .accepted(let logged) = outcome { return logged.sequence }
                    return 0
                }
            }
            return try await group.reduce(into: [UInt64]()) { $0.append($1) }
        }
        #expect(numbers.sorted() == Array(1...40))
        #expect(try await store.operations(roomID: "busy", after: 0, limit: 100).map(\.sequence) == Array(1...40))
    }

    @Test("two hosts on one PostgreSQL database submitting to one room at once: every operation stored once, numbers 1…N, each host's state the log's")
    func twoServersAtOnce() async throws {
        let (url, drop) = try await PostgresScratch.create()
        let storeA = try PostgresLibraryStore(url: url, cacheLimitBytes: 1 << 20)
        let storeB = try PostgresLibraryStore(url: url, cacheLimitBytes: 1 << 20)
        defer { Task { try? await storeA.close(); try? await storeB.close(); await drop() } }
        try await storeA.migrate()
        let a = RoomHost(store: storeA), b = RoomHost(store: storeB)
        _ = try await a.create(RoomSettings(id: "race", name: "r", ownerID: "teacher", members: ["student"]))
        // Batches of both hosts race for the same numbers: the loser reads the room again and
        // numbers its batch again, its order kept.
        let numbers = try await withThrowingTaskGroup(of: (String, UInt64).self) { group in
            for i in 0..<60 {
                let (host, who) = i % 2 == 0 ? (a, teacher) : (b, student)
                group.addTask {
                    let outcome = try await host.submit(ClientOperation(clientOpID: "c\(i)", operation: Self.stroke("s\(i)")), by: who, to: "race")
                    guard case .accepted(let logged) = outcome else { return ("c\(i)", 0) }
                    return ("c\(i)", logged.sequence)
                }
            }
            return try await group.reduce(into: [String: UInt64]()) { $0[$1.0] = $1.1 }
        }
        #expect(numbers.values.sorted() == Array(1...60))
        let log = try await storeA.operations(roomID: "race", after: 0, limit: 100)
        #expect(log.map(\.sequence) == Array(1...60))
        let decoded = try log.map { try JSONDecoder().decode(LoggedOperation.self, from: Data($0.json.utf8)) }
        #expect(Dictionary(uniqueKeysWithValues: decoded.map { ($0.clientOpID, $0.sequence) }) == numbers)
        // Each host's room is the log's room.
        var replayed = RoomState()
        for op in decoded { replayed.replay(op) }
        #expect(try await RoomHost(store: storeA).snapshot(of: "race", for: teacher) == replayed)
        _ = try await b.submit(ClientOperation(clientOpID: "last", operation: Self.stroke("last")), by: student, to: "race")
        #expect(try await b.snapshot(of: "race", for: student).strokes.count == 61)
    }

    @Test("history: the state after operation N, from the log or from the history base once the log is trimmed", arguments: [StoreKind.sqlite])
    func history(kind: StoreKind) async throws {
        let (store, cleanup) = try await TestStores.open(kind, cacheLimit: 1 << 20)
        defer { Task { await cleanup() } }
        try await store.migrate()
        let host = RoomHost(store: store, snapshotInterval: 10, historyOperations: 5)
        _ = try await host.create(RoomSettings(id: "h", name: "h", ownerID: "teacher"))
        // Someone watching keeps the room loaded, as in a live room: its snapshots then fall at
        // 10 and 20 exactly (a room loaded again counts from its last stored snapshot).
        let watching = try await host.subscribe(to: "h", for: teacher)
        var states: [RoomState] = [RoomState()]
        for i in 0..<25 {
            _ = try await host.submit(ClientOperation(clientOpID: "c\(i)", operation: Self.stroke("s\(i)")), by: teacher, to: "h")
            states.append(try await host.snapshot(of: "h", for: teacher))
        }
        // Snapshots at 10 and 20; at 20 the log (base 0) holds 20 ≥ 2 × 5: folded up to 15.
        try await eventually("the log folded up to 15") { try await store.historyBaseSequence(roomID: "h") == 15 }
        for n in [15, 16, 20, 24, 25] {
            #expect(try await host.state(of: "h", at: UInt64(n), for: teacher) == states[n], "state at \(n)")
        }
        await #expect(throws: RoomError.self) { try await host.state(of: "h", at: 14, for: teacher) }
        await #expect(throws: RoomError.self) { try await host.state(of: "h", at: 26, for: teacher) }
        await #expect(throws: RoomError.self) { try await host.operations(in: "h", after: 3, for: teacher) }
        #expect(try await host.operations(in: "h", after: 20, for: teacher).map(\.sequence) == [21, 22, 23, 24, 25])
        // Resuming from before the fold: the backlog cannot cover it (the server sends the state).
        let resumed = try await host.subscribe(to: "h", for: teacher, after: 3)
        #expect(resumed.backlog.first?.sequence != 4)
        #expect(try await RoomHost(store: store).snapshot(of: "h", for: teacher) == states[25])
        watching.updates.finish()
    }

    @Test("a client that resumes after a sequence gets the stored operations up to the live state, then live ones", arguments: StoreKind.allCases)
    func resume(kind: StoreKind) async throws {
        let (store, cleanup) = try await TestStores.open(kind, cacheLimit: 1 << 20)
        defer { Task { await cleanup() } }
        try await store.migrate()
        let host = RoomHost(store: store)
        _ = try await host.create(RoomSettings(id: "resume", name: "r", ownerID: "teacher"))
        for i in 0..<6 { _ = try await host.submit(ClientOperation(clientOpID: "c\(i)", operation: Self.stroke("s\(i)")), by: teacher, to: "resume") }
        let subscription = try await host.subscribe(to: "resume", for: teacher, after: 2)
        let state = subscription.snapshot, backlog = subscription.backlog, updates = subscription.updates
        #expect(state.sequence == 6 && backlog.map(\.sequence) == [3, 4, 5, 6])
        _ = try await host.submit(ClientOperation(clientOpID: "c6", operation: Self.stroke("s6")), by: teacher, to: "resume")
        #expect(try await Self.first(1, of: updates) == [7])
    }

    @Test("two hosts on one PostgreSQL database (two servers): operations stored by one reach the other's subscribers in order")
    func twoServers() async throws {
        let (url, drop) = try await PostgresScratch.create()
        let storeA = try PostgresLibraryStore(url: url, cacheLimitBytes: 1 << 20)
        let storeB = try PostgresLibraryStore(url: url, cacheLimitBytes: 1 << 20)
        defer { Task { try? await storeA.close(); try? await storeB.close(); await drop() } }
        try await storeA.migrate()
        let a = RoomHost(store: storeA), b = RoomHost(store: storeB)
        let watch = Task { await b.watchOtherServers() }
        let watchA = Task { await a.watchOtherServers() }
        defer { watch.cancel(); watchA.cancel() }
        _ = try await a.create(RoomSettings(id: "shared", name: "s", ownerID: "teacher", members: ["student"]))
        let onB = try await b.subscribe(to: "shared", for: student).updates
        // Both hosts are listening once two connections to the database have run LISTEN.
        try await eventually("both hosts to LISTEN") {
            try await PostgresScratch.listeners(on: "proteinar_room_appends", database: url) == 2
        }
        // A's operations reach B's subscriber by notification alone: B does nothing meanwhile.
        for i in 0..<5 { _ = try await a.submit(ClientOperation(clientOpID: "a\(i)", operation: Self.stroke("a\(i)")), by: teacher, to: "shared") }
        #expect(try await Self.first(5, of: onB) == [1, 2, 3, 4, 5])
        let onA = try await a.subscribe(to: "shared", for: teacher)
        #expect(onA.snapshot.sequence == 5)
        // B is up to date: its own submission takes the next number; A's subscriber hears of it by
        // notification alone.
        let outcome = try await b.submit(ClientOperation(clientOpID: "b0", operation: Self.stroke("b0")), by: student, to: "shared")
        #expect(outcome == .accepted(LoggedOperation(sequence: 6, author: "student", clientOpID: "b0", operation: Self.stroke("b0"))))
        #expect(try await Self.first(1, of: onB) == [6])
        #expect(try await Self.first(1, of: onA.updates) == [6])

        // A host that does not listen falls behind: its own submission catches up from the log,
        // takes the next free number, and its subscriber gets what it missed first, in order.
        let c = RoomHost(store: storeB)
        let onC = try await c.subscribe(to: "shared", for: student).updates
        for i in 5..<7 { _ = try await a.submit(ClientOperation(clientOpID: "a\(i)", operation: Self.stroke("a\(i)")), by: teacher, to: "shared") }
        let late = try await c.submit(ClientOperation(clientOpID: "c0", operation: Self.stroke("c0")), by: student, to: "shared")
        #expect(late == .accepted(LoggedOperation(sequence: 9, author: "student", clientOpID: "c0", operation: Self.stroke("c0"))))
        #expect(try await Self.first(3, of: onC) == [7, 8, 9])
        #expect(try await Self.first(3, of: onB) == [7, 8, 9])
        #expect(try await Self.first(3, of: onA.updates) == [7, 8, 9])
        let strokes = try await a.snapshot(of: "shared", for: teacher).strokes
        #expect(strokes.count == 9)
        #expect(try await b.snapshot(of: "shared", for: teacher).strokes == strokes)
        #expect(try await c.snapshot(of: "shared", for: teacher).strokes == strokes)
    }

    @Test("a settings change on one host (server) reaches another holding the room: read again, non-readers let go, reported")
    func settingsAcrossServers() async throws {
        let (url, drop) = try await PostgresScratch.create()
        let storeA = try PostgresLibraryStore(url: url, cacheLimitBytes: 1 << 20)
        let storeB = try PostgresLibraryStore(url: url, cacheLimitBytes: 1 << 20)
        defer { Task { try? await storeA.close(); try? await storeB.close(); await drop() } }
        try await storeA.migrate()
        let a = RoomHost(store: storeA), b = RoomHost(store: storeB)
        #expect(a.sharedByServers && b.sharedByServers)
        let watch = Task { try? await b.watchNotices(on: [RoomHost.settingsChannel]) { _, payload in await b.settingsNotice(payload) } }
        defer { watch.cancel() }
        _ = try await a.create(RoomSettings(id: "shared", name: "before", ownerID: "teacher", members: ["student"]))
        let studentOnB = try await b.subscribe(to: "shared", for: student).updates
        _ = try await b.subscribe(to: "shared", for: teacher)
        try await eventually("B to LISTEN") {
            try await PostgresScratch.listeners(on: RoomHost.settingsChannel, database: url) == 1
        }
        // Malformed notices and a host's own are ignored: B reports only A's change.
        try await storeA.notify(channel: RoomHost.settingsChannel, payload: "no-room-id-here")
        try await storeA.notify(channel: RoomHost.settingsChannel, payload: "\(b.instance) shared")
        _ = try await a.modifySettings(of: "shared") { $0.name = "after"; $0.members.remove("student") }
        let changed = try await within(.seconds(30), "B's report of the change") { () -> RoomSettings? in
            for await settings in b.settingsChanges { return settings }
            return nil
        }
        #expect(changed?.name == "after")
        #expect(try await b.settings(of: "shared").members.isEmpty)
        // The student may no longer read: B lets their subscription go (it ends with no update).
        #expect(try await Self.first(1, of: studentOnB) == [])
    }

    @Test("a host on SQLite (one server) is not shared and has no notices to hear", arguments: [StoreKind.sqlite])
    func notSharedOnSQLite(_ kind: StoreKind) async throws {
        let (store, close) = try await TestStores.open(kind)
        defer { Task { await close() } }
        try await store.migrate()
        let host = RoomHost(store: store)
        #expect(!host.sharedByServers)
        // Returns at once: nothing runs.
        try await within(.seconds(5), "watchNotices to return") {
            try await host.watchNotices(on: [RoomHost.settingsChannel]) { _, _ in }
        }
    }

    /// The sequence numbers of the next `count` updates, or a failure after `limit` (a lost
    /// notification fails the test instead of hanging the run).
    static func first(_ count: Int, of updates: RoomMailbox, within limit: Duration = .seconds(30)) async throws -> [UInt64] {
        try await within(limit, "\(count) room updates") {
            var seen: [UInt64] = []
            for await update in updates {
                seen.append(update.sequence)
                if seen.count == count { break }
            }
            return seen
        }
    }
}
