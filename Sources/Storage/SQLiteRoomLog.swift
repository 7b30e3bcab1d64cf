import Foundation
import GRDB

/// Rooms in the SQLite library: each append is its own transaction, committed to the write-ahead
/// log before it returns, so a process killed right after has it.
extension SQLiteLibraryStore {
    public func createRoom(id: String, settingsJSON: String) async throws -> Bool {
        try await pool.write { db in
            try db.execute(sql: "INSERT OR IGNORE INTO rooms (id, settings, created_at) VALUES (?, ?, ?)",
                           arguments: [id, settingsJSON, Date().timeIntervalSince1970])
            return db.changesCount == 1
        }
    }

    public func saveRoom(id: String, settingsJSON: String) async throws {
        try await pool.write { db in
            try db.execute(sql: """
                INSERT INTO rooms (id, settings, created_at) VALUES (?, ?, ?)
                ON CONFLICT(id) DO UPDATE SET settings = excluded.settings
                """, arguments: [id, settingsJSON, Date().timeIntervalSince1970])
        }
    }

    public func room(id: String) async throws -> StoredRoom? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT id, settings, created_at FROM rooms WHERE id = ?", arguments: [id]).map(Self.room)
        }
    }

    public func rooms() async throws -> [StoredRoom] {
        try await pool.read { db in try Row.fetchAll(db, sql: "SELECT id, settings, created_at FROM rooms ORDER BY created_at").map(Self.room) }
    }

    static func room(_ row: Row) -> StoredRoom {
        StoredRoom(id: row["id"], settingsJSON: row["settings"], createdAt: Date(timeIntervalSince1970: row["created_at"]))
    }

    public func appendOperations(_ operations: [StoredRoomOperation]) async throws -> Bool {
        guard !operations.isEmpty else { return true }
        return try await appends.append(operations)
    }

    /// Inserts a batch of one room's operations, all or none (a savepoint inside the shared
    /// transaction): false when a number is taken.
    static func insert(_ batch: [StoredRoomOperation], _ db: Database) throws -> Bool {
        var inserted = true
        // Compiled once per connection: thousands of operations a second go through it.
        let insert = try db.cachedStatement(sql: "INSERT OR IGNORE INTO room_operations (room_id, sequence, operation) VALUES (?, ?, ?)")
        try db.inSavepoint {
            for op in batch {
                try insert.execute(arguments: [op.roomID, op.sequence, op.json])
                if db.changesCount != 1 { inserted = false; return .rollback }
            }
            return .commit
        }
        return inserted
    }

    public func operations(roomID: String, after: Int64, limit: Int) async throws -> [StoredRoomOperation] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: """
                SELECT sequence, operation FROM room_operations WHERE room_id = ? AND sequence > ? ORDER BY sequence LIMIT ?
                """, arguments: [roomID, after, limit]).map { StoredRoomOperation(roomID: roomID, sequence: $0["sequence"], json: $0["operation"]) }
        }
    }

    public func saveSnapshot(roomID: String, sequence: Int64, json: String) async throws {
        try await pool.write { db in
            try db.execute(sql: """
                INSERT INTO room_snapshots (room_id, sequence, snapshot) VALUES (?, ?, ?)
                ON CONFLICT(room_id) DO UPDATE SET sequence = excluded.sequence, snapshot = excluded.snapshot
                WHERE excluded.sequence > room_snapshots.sequence
                """, arguments: [roomID, sequence, json])
        }
    }

    public func latestSnapshot(roomID: String) async throws -> (sequence: Int64, json: String)? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT sequence, snapshot FROM room_snapshots WHERE room_id = ?", arguments: [roomID])
                .map { (sequence: $0["sequence"], json: $0["snapshot"]) }
        }
    }

    public func trimOperations(roomID: String, through sequence: Int64, baseJSON: String) async throws {
        try await pool.write { db in
            try db.execute(sql: """
                INSERT INTO room_history_bases (room_id, sequence, snapshot) VALUES (?, ?, ?)
                ON CONFLICT(room_id) DO UPDATE SET sequence = excluded.sequence, snapshot = excluded.snapshot
                WHERE excluded.sequence > room_history_bases.sequence
                """, arguments: [roomID, sequence, baseJSON])
            try db.execute(sql: "DELETE FROM room_operations WHERE room_id = ? AND sequence <= ?", arguments: [roomID, sequence])
        }
    }

    public func historyBase(roomID: String) async throws -> (sequence: Int64, json: String)? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT sequence, snapshot FROM room_history_bases WHERE room_id = ?", arguments: [roomID])
                .map { (sequence: $0["sequence"], json: $0["snapshot"]) }
        }
    }

    public func historyBaseSequence(roomID: String) async throws -> Int64 {
        try await pool.read { db in
            try Int64.fetchOne(db, sql: "SELECT sequence FROM room_history_bases WHERE room_id = ?", arguments: [roomID]) ?? 0
        }
    }

    /// One SQLite file has one server: nothing to hear from others.
    public func watchAppends(_ onAppend: @escaping @Sendable (String, Int64) async -> Void) async throws {}
    /// One server uses the file: nothing to tell, nobody to hear it.
    public var sharedByServers: Bool { false }
    public func notify(channel: String, payload: String) async throws {}
    public func watchNotices(on channels: [String], _ onNotice: @escaping @Sendable (String, String) async -> Void) async throws {}
}

/// Group commit: appends that arrive while a transaction is being written go together into the
/// next one, so many rooms' operations share one sync to disk instead of one each. Every append
/// still returns only after its transaction has committed.
actor SQLiteAppendQueue {
    private let pool: DatabasePool
    private var pending: [(batch: [StoredRoomOperation], done: CheckedContinuation<Bool, any Error>)] = []
    private var writing = false

    init(pool: DatabasePool) { self.pool = pool }

    func append(_ batch: [StoredRoomOperation]) async throws -> Bool {
        try await withCheckedThrowingContinuation { done in
            pending.append((batch, done))
            if !writing {
                writing = true
                Task { await drain() }
            }
        }
    }

    private func drain() async {
        while !pending.isEmpty {
            let batch = pending
            pending = []
            let batches = batch.map(\.batch)
            do {
                let inserted = try await pool.write { db in try batches.map { try SQLiteLibraryStore.insert($0, db) } }
                for (entry, ok) in zip(batch, inserted) { entry.done.resume(returning: ok) }
            } catch {
                // One bad batch must not fail the others: write them one by one.
                for entry in batch {
                    do { entry.done.resume(returning: try await pool.write { db in try SQLiteLibraryStore.insert(entry.batch, db) }) }
                    catch { entry.done.resume(throwing: error) }
                }
            }
        }
        writing = false
    }
}
