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

    public func appendOperation(_ op: StoredRoomOperation) async throws -> Bool {
        try await appends.append(op)
    }

    static func insert(_ op: StoredRoomOperation, _ db: Database) throws -> Bool {
        try db.execute(sql: "INSERT OR IGNORE INTO room_operations (room_id, sequence, operation) VALUES (?, ?, ?)",
                       arguments: [op.roomID, op.sequence, op.json])
        return db.changesCount == 1
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
    private var pending: [(operation: StoredRoomOperation, done: CheckedContinuation<Bool, any Error>)] = []
    private var writing = false

    init(pool: DatabasePool) { self.pool = pool }

    func append(_ op: StoredRoomOperation) async throws -> Bool {
        try await withCheckedThrowingContinuation { done in
            pending.append((op, done))
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
            let operations = batch.map(\.operation)
            do {
                let inserted = try await pool.write { db in try operations.map { try SQLiteLibraryStore.insert($0, db) } }
                for (entry, ok) in zip(batch, inserted) { entry.done.resume(returning: ok) }
            } catch {
                // One bad operation must not fail the others: write them one by one.
                for entry in batch {
                    do { entry.done.resume(returning: try await pool.write { db in try SQLiteLibraryStore.insert(entry.operation, db) }) }
                    catch { entry.done.resume(throwing: error) }
                }
            }
        }
        writing = false
    }
}
