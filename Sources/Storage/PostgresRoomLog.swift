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

    /// Appends the batch in one statement (all rows or, when a number is taken, none) and, in the
    /// same statement, tells every listening server (`watchAppends`) the last sequence; the
    /// notification is delivered when the insert commits, and only if it inserted.
    public func appendOperations(_ operations: [StoredRoomOperation]) async throws -> Bool {
        guard let first = operations.first, let last = operations.last else { return true }
        let payload = "\(last.sequence):\(first.roomID)"
        let sequences = operations.map(\.sequence), texts = operations.map(\.json)
        do {
            let rows = try await client.query("""
                WITH appended AS (
                    INSERT INTO room_operations (room_id, sequence, operation)
                    SELECT \(first.roomID), s, o FROM UNNEST(\(sequences)::bigint[], \(texts)::text[]) AS batch(s, o)
                    RETURNING sequence)
                SELECT pg_notify('proteinar_room_appends', \(payload)) FROM (SELECT 1 FROM appended LIMIT 1) AS inserted
                """, logger: logger)
            for try await _ in rows {}
            return true
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
            return false  // unique_violation: another server took one of the numbers
        }
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

    public func trimOperations(roomID: String, through sequence: Int64, baseJSON: String) async throws {
        try await client.withTransaction(logger: logger) { connection in
            try await connection.query("""
                INSERT INTO room_history_bases (room_id, sequence, snapshot) VALUES (\(roomID), \(sequence), \(baseJSON))
                ON CONFLICT (room_id) DO UPDATE SET sequence = EXCLUDED.sequence, snapshot = EXCLUDED.snapshot
                WHERE EXCLUDED.sequence > room_history_bases.sequence
                """, logger: logger)
            try await connection.query("DELETE FROM room_operations WHERE room_id = \(roomID) AND sequence <= \(sequence)", logger: logger)
        }
    }

    public func historyBase(roomID: String) async throws -> (sequence: Int64, json: String)? {
        let rows = try await client.query("SELECT sequence, snapshot FROM room_history_bases WHERE room_id = \(roomID)", logger: logger)
        for try await (sequence, json) in rows.decode((Int64, String).self) { return (sequence, json) }
        return nil
    }

    public func historyBaseSequence(roomID: String) async throws -> Int64 {
        let rows = try await client.query("SELECT sequence FROM room_history_bases WHERE room_id = \(roomID)", logger: logger)
        for try await sequence in rows.decode(Int64.self) { return sequence }
        return 0
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
