import Foundation
import GRDB

extension SQLiteLibraryStore {
    public func invite(_ i: StoredInvitation, limit: Int) async throws -> Bool {
        try await pool.write { db in
            // One write transaction: the count and the insert see the same table.
            let pending = try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM room_invitations WHERE room_id = ? AND email = ?)",
                                            arguments: [i.roomID, i.email]) ?? false
            if !pending {
                let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM room_invitations WHERE room_id = ?", arguments: [i.roomID]) ?? 0
                guard count < limit else { return false }
            }
            try db.execute(sql: """
                INSERT INTO room_invitations (room_id, email, invited_by, invited_at) VALUES (?, ?, ?, ?)
                ON CONFLICT (room_id, email) DO UPDATE SET invited_by = excluded.invited_by, invited_at = excluded.invited_at
                """, arguments: [i.roomID, i.email, i.invitedBy, i.invitedAt.timeIntervalSince1970])
            return true
        }
    }

    public func invitations(roomID: String) async throws -> [StoredInvitation] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM room_invitations WHERE room_id = ? ORDER BY email", arguments: [roomID]).map(Self.invitation)
        }
    }

    public func invitations(email: String) async throws -> [StoredInvitation] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM room_invitations WHERE email = ? ORDER BY invited_at DESC, room_id",
                             arguments: [email]).map(Self.invitation)
        }
    }

    public func deleteInvitation(roomID: String, email: String) async throws -> Bool {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM room_invitations WHERE room_id = ? AND email = ?", arguments: [roomID, email])
            return db.changesCount == 1
        }
    }

    static func invitation(_ row: Row) -> StoredInvitation {
        StoredInvitation(roomID: row["room_id"], email: row["email"], invitedBy: row["invited_by"],
                         invitedAt: Date(timeIntervalSince1970: row["invited_at"]))
    }
}
