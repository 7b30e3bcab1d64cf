import Foundation
import PostgresNIO

extension PostgresLibraryStore {
    public func invite(_ i: StoredInvitation, limit: Int) async throws -> Bool {
        let logger = logger
        return try await client.withTransaction(logger: logger) { db in
            // Servers inviting to the same room at once: one at a time, so the count holds.
            try await db.query("SELECT pg_advisory_xact_lock(784514, hashtext(\(i.roomID)))", logger: logger)
            let pending = try await db.query("SELECT 1::bigint FROM room_invitations WHERE room_id = \(i.roomID) AND email = \(i.email)",
                                             logger: logger)
            var exists = false
            for try await _ in pending.decode(Int.self) { exists = true }
            if !exists {
                let counted = try await db.query("SELECT count(*)::bigint FROM room_invitations WHERE room_id = \(i.roomID)", logger: logger)
                var count = 0
                for try await n in counted.decode(Int.self) { count = n }
                guard count < limit else { return false }
            }
            try await db.query("""
                INSERT INTO room_invitations (room_id, email, invited_by, invited_at)
                VALUES (\(i.roomID), \(i.email), \(i.invitedBy), \(i.invitedAt.timeIntervalSince1970))
                ON CONFLICT (room_id, email) DO UPDATE SET invited_by = EXCLUDED.invited_by, invited_at = EXCLUDED.invited_at
                """, logger: logger)
            return true
        }
    }

    public func invitations(roomID: String) async throws -> [StoredInvitation] {
        try await invitationRows(client.query("""
            SELECT room_id, email, invited_by, invited_at FROM room_invitations WHERE room_id = \(roomID) ORDER BY email
            """, logger: logger))
    }

    public func invitations(email: String) async throws -> [StoredInvitation] {
        try await invitationRows(client.query("""
            SELECT room_id, email, invited_by, invited_at FROM room_invitations WHERE email = \(email)
            ORDER BY invited_at DESC, room_id
            """, logger: logger))
    }

    public func deleteInvitation(roomID: String, email: String) async throws -> Bool {
        let rows = try await client.query("DELETE FROM room_invitations WHERE room_id = \(roomID) AND email = \(email) RETURNING email",
                                          logger: logger)
        for try await _ in rows.decode(String.self) { return true }
        return false
    }

    private func invitationRows(_ rows: PostgresRowSequence) async throws -> [StoredInvitation] {
        var out: [StoredInvitation] = []
        for try await (room, email, by, at) in rows.decode((String, String, String, Double).self) {
            out.append(StoredInvitation(roomID: room, email: email, invitedBy: by, invitedAt: Date(timeIntervalSince1970: at)))
        }
        return out
    }
}
