import Foundation
import GRDB

extension SQLiteLibraryStore {
    public func createLesson(_ l: StoredLesson, limitPerOwner: Int) async throws -> Bool {
        try await pool.write { db in
            // One write transaction: the count and the insert see the same table.
            let owned = try Int.fetchOne(db, sql: "SELECT count(*) FROM lessons WHERE owner_id = ?", arguments: [l.ownerID]) ?? 0
            guard owned < limitPerOwner else { return false }
            try db.execute(sql: """
                INSERT INTO lessons (id, owner_id, title, steps, step_count, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
                """, arguments: [l.id, l.ownerID, l.title, l.steps, l.stepCount, l.createdAt.timeIntervalSince1970, l.updatedAt.timeIntervalSince1970])
            return true
        }
    }

    public func lesson(id: String) async throws -> StoredLesson? {
        try await pool.read { db in try Row.fetchOne(db, sql: "SELECT * FROM lessons WHERE id = ?", arguments: [id]).map(Self.lesson) }
    }

    public func lessons(ownerID: String) async throws -> [StoredLesson] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM lessons WHERE owner_id = ? ORDER BY updated_at DESC, id", arguments: [ownerID]).map(Self.lesson)
        }
    }

    public func replaceLesson(_ l: StoredLesson, stepIDs: [String]) async throws -> Bool {
        try await pool.write { db in
            try db.execute(sql: "UPDATE lessons SET title = ?, steps = ?, step_count = ?, updated_at = ? WHERE id = ?",
                           arguments: [l.title, l.steps, l.stepCount, l.updatedAt.timeIntervalSince1970, l.id])
            guard db.changesCount == 1 else { return false }
            let kept = stepIDs.isEmpty ? "" : " AND step_id NOT IN (\(stepIDs.map { _ in "?" }.joined(separator: ",")))"
            try db.execute(sql: "DELETE FROM lesson_answers WHERE lesson_id = ?" + kept,
                           arguments: StatementArguments([l.id] + stepIDs))
            return true
        }
    }

    public func deleteLesson(id: String) async throws -> Bool {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM lessons WHERE id = ?", arguments: [id])
            return db.changesCount == 1
        }
    }

    public func answer(_ a: StoredAnswer, limitPerLesson: Int) async throws -> Bool {
        try await pool.write { db in
            let known = try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM lesson_answers WHERE lesson_id = ? AND step_id = ? AND answerer = ?)",
                                          arguments: [a.lessonID, a.stepID, a.answerer]) ?? false
            if !known {
                let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM lesson_answers WHERE lesson_id = ?", arguments: [a.lessonID]) ?? 0
                guard count < limitPerLesson else { return false }
            }
            try db.execute(sql: """
                INSERT INTO lesson_answers (lesson_id, step_id, answerer, name, choice, answered_at) VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (lesson_id, step_id, answerer) DO UPDATE SET name = excluded.name, choice = excluded.choice,
                    answered_at = excluded.answered_at
                """, arguments: [a.lessonID, a.stepID, a.answerer, a.name, a.choice, a.answeredAt.timeIntervalSince1970])
            return true
        }
    }

    public func answers(lessonID: String) async throws -> [StoredAnswer] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM lesson_answers WHERE lesson_id = ? ORDER BY answered_at, answerer",
                             arguments: [lessonID]).map { row in
                StoredAnswer(lessonID: row["lesson_id"], stepID: row["step_id"], answerer: row["answerer"], name: row["name"],
                             choice: row["choice"], answeredAt: Date(timeIntervalSince1970: row["answered_at"]))
            }
        }
    }

    static func lesson(_ row: Row) -> StoredLesson {
        StoredLesson(id: row["id"], ownerID: row["owner_id"], title: row["title"], steps: row["steps"], stepCount: row["step_count"],
                     createdAt: Date(timeIntervalSince1970: row["created_at"]), updatedAt: Date(timeIntervalSince1970: row["updated_at"]))
    }
}
