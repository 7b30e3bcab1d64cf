import Foundation
import PostgresNIO

/// Rooms in PostgreSQL, shared by every server on the database. The (room, sequence) primary key
/// makes each number go to exactly one operation, whichever server appends it first.
extension PostgresLibraryStore {
    public func createRoom(id: String, settingsJSON: String) async throws -> Bool {
        let rows = try await client.query("""
            INSERT INTO rooms (id, settings, created_at) VALUES (\(id), \(settingsJSON), \(Date().timeIntervalSince1970))
            ON CONFLICT (id) DO NOTHING RETURNING id
            """, logger: logger)
        for try await _ in rows.decode(String.self) { return true }
        return false
    }

    public func saveRoom(id: String, settingsJSON: String) async throws {
        try await client.query("""
            INSERT INTO rooms (id, settings, created_at) VALUES (\(id), \(settingsJSON), \(Date().timeIntervalSince1970))
            ON CONFLICT (id) DO UPDATE SET settings = EXCLUDED.settings
            """, logger: logger)
    }

    public func room(id: String) async throws -> StoredRoom? {
        let rows = try await client.query("SELECT id, settings, created_at FROM rooms WHERE id = \(id)", logger: logger)
        for try await (id, settings, created) in rows.decode((String, String, Double).self) {
            return StoredRoom(id: id, settingsJSON: settings, createdAt: Date(timeIntervalSince1970: created))
        }
        return nil
    }

    public func rooms() async throws -> [StoredRoom] {
        var out: [StoredRoom] = []
        let rows = try await client.query("SELECT id, settings, created_at FROM rooms ORDER BY created_at", logger: logger)
        for try await (id, settings, created) in rows.decode((String, String, Double).self) {
            out.append(StoredRoom(id: id, settingsJSON: settings, createdAt: Date(timeIntervalSince1970: created)))
        }
        return out
    }

    /// Appends and, in the same statement, tells every listening server (`watchAppends`); the
    /// notification is delivered when the insert commits, and only if it inserted.
    public func appendOperation(_ op: StoredRoomOperation) async throws -> Bool {
        let payload = "\(op.sequence):\(op.roomID)"
        let rows = try await client.query("""
            WITH appended AS (
                INSERT INTO room_operations (room_id, sequence, operation) VALUES (\(op.roomID), \(op.sequence), \(op.json))
                ON CONFLICT DO NOTHING RETURNING sequence)
            SELECT sequence, pg_notify('proteinar_room_appends', \(payload)) FROM appended
            """, logger: logger)
        for try await _ in rows { return true }
        return false
    }

    public func operations(roomID: String, after: Int64, limit: Int) async throws -> [StoredRoomOperation] {
        var out: [StoredRoomOperation] = []
        let rows = try await client.query("""
            SELECT sequence, operation FROM room_operations WHERE room_id = \(roomID) AND sequence > \(after)
            ORDER BY sequence LIMIT \(limit)
            """, logger: logger)
        for try await (sequence, json) in rows.decode((Int64, String).self) {
            out.append(StoredRoomOperation(roomID: roomID, sequence: sequence, json: json))
        }
        return out
    }

    public func saveSnapshot(roomID: String, sequence: Int64, json: String) async throws {
        try await client.query("""
            INSERT INTO room_snapshots (room_id, sequence, snapshot) VALUES (\(roomID), \(sequence), \(json))
            ON CONFLICT (room_id) DO UPDATE SET sequence = EXCLUDED.sequence, snapshot = EXCLUDED.snapshot
            WHERE EXCLUDED.sequence > room_snapshots.sequence
            """, logger: logger)
    }

    public func latestSnapshot(roomID: String) async throws -> (sequence: Int64, json: String)? {
        let rows = try await client.query("SELECT sequence, snapshot FROM room_snapshots WHERE room_id = \(roomID)", logger: logger)
        for try await (sequence, json) in rows.decode((Int64, String).self) { return (sequence, json) }
        return nil
    }

    /// The channel `appendOperation` notifies on (its SQL names it too).
    static let appendsChannel = "proteinar_room_appends"

    public func watchAppends(_ onAppend: @escaping @Sendable (String, Int64) async -> Void) async throws {
        try await watchNotices(on: [Self.appendsChannel]) { _, payload in
            guard let colon = payload.firstIndex(of: ":"), let sequence = Int64(payload[..<colon]) else { return }
            await onAppend(String(payload[payload.index(after: colon)...]), sequence)
        }
    }

    public var sharedByServers: Bool { true }

    public func notify(channel: String, payload: String) async throws {
        guard payload.utf8.count <= RoomNotice.maximumPayloadBytes else {
            throw LibraryStoreError("a notice on \(channel) has \(payload.utf8.count) bytes; at most \(RoomNotice.maximumPayloadBytes)")
        }
        try await client.query("SELECT pg_notify(\(channel), \(payload))", logger: logger)
    }

    /// LISTEN on one pooled connection for the whole watch, every channel on it; the first channel
    /// that fails ends the watch (the caller listens again).
    public func watchNotices(on channels: [String], _ onNotice: @escaping @Sendable (String, String) async -> Void) async throws {
        try await client.withConnection { connection in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for channel in channels {
                    group.addTask {
                        try await connection.listen(on: channel) { notifications in
                            for try await note in notifications { await onNotice(channel, note.payload) }
                        }
                    }
                }
                defer { group.cancelAll() }
                _ = try await group.next()
            }
        }
    }
}
