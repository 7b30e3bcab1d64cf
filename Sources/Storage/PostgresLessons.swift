import Foundation
import PostgresNIO

extension PostgresLibraryStore {
    public func createLesson(_ l: StoredLesson, limitPerOwner: Int) async throws -> Bool {
        let logger = logger
        return try await client.withTransaction(logger: logger) { db in
            // Servers adding lessons for one owner at once: one at a time, so the count holds.
            try await db.query("SELECT pg_advisory_xact_lock(784515, hashtext(\(l.ownerID)))", logger: logger)
            let counted = try await db.query("SELECT count(*)::bigint FROM lessons WHERE owner_id = \(l.ownerID)", logger: logger)
            var owned = 0
            for try await n in counted.decode(Int.self) { owned = n }
            guard owned < limitPerOwner else { return false }
            try await db.query("""
                INSERT INTO lessons (id, owner_id, title, steps, step_count, created_at, updated_at)
                VALUES (\(l.id), \(l.ownerID), \(l.title), \(l.steps), \(l.stepCount), \(l.createdAt.timeIntervalSince1970), \(l.updatedAt.timeIntervalSince1970))
                """, logger: logger)
            return true
        }
    }

    public func lesson(id: String) async throws -> StoredLesson? {
        try await lessonRows(client.query("SELECT \(unescaped: Self.lessonColumns) FROM lessons WHERE id = \(id)", logger: logger)).first
    }

    public func lessons(ownerID: String) async throws -> [StoredLesson] {
        try await lessonRows(client.query("""
            SELECT \(unescaped: Self.lessonColumns) FROM lessons WHERE owner_id = \(ownerID) ORDER BY updated_at DESC, id
            """, logger: logger))
    }

    public func replaceLesson(_ l: StoredLesson, stepIDs: [String]) async throws -> Bool {
        let logger = logger
        return try await client.withTransaction(logger: logger) { db in
            let updated = try await db.query("""
                UPDATE lessons SET title = \(l.title), steps = \(l.steps), step_count = \(l.stepCount),
                    updated_at = \(l.updatedAt.timeIntervalSince1970) WHERE id = \(l.id) RETURNING id
                """, logger: logger)
            var found = false
            for try await _ in updated.decode(String.self) { found = true }
            guard found else { return false }
            try await db.query("DELETE FROM lesson_answers WHERE lesson_id = \(l.id) AND NOT (step_id = ANY(\(stepIDs)))", logger: logger)
            return true
        }
    }

    public func deleteLesson(id: String) async throws -> Bool {
        let rows = try await client.query("DELETE FROM lessons WHERE id = \(id) RETURNING id", logger: logger)
        for try await _ in rows.decode(String.self) { return true }
        return false
    }

    public func answer(_ a: StoredAnswer, limitPerLesson: Int) async throws -> Bool {
        let logger = logger
        return try await client.withTransaction(logger: logger) { db in
            try await db.query("SELECT pg_advisory_xact_lock(784516, hashtext(\(a.lessonID)))", logger: logger)
            let known = try await db.query("""
                SELECT 1::bigint FROM lesson_answers WHERE lesson_id = \(a.lessonID) AND step_id = \(a.stepID) AND answerer = \(a.answerer)
                """, logger: logger)
            var exists = false
            for try await _ in known.decode(Int.self) { exists = true }
            if !exists {
                let counted = try await db.query("SELECT count(*)::bigint FROM lesson_answers WHERE lesson_id = \(a.lessonID)", logger: logger)
                var count = 0
                for try await n in counted.decode(Int.self) { count = n }
                guard count < limitPerLesson else { return false }
            }
            try await db.query("""
                INSERT INTO lesson_answers (lesson_id, step_id, answerer, name, choice, answered_at)
                VALUES (\(a.lessonID), \(a.stepID), \(a.answerer), \(a.name), \(a.choice), \(a.answeredAt.timeIntervalSince1970))
                ON CONFLICT (lesson_id, step_id, answerer) DO UPDATE SET name = EXCLUDED.name, choice = EXCLUDED.choice,
                    answered_at = EXCLUDED.answered_at
                """, logger: logger)
            return true
        }
    }

    public func answers(lessonID: String) async throws -> [StoredAnswer] {
        let rows = try await client.query("""
            SELECT lesson_id, step_id, answerer, name, choice, answered_at FROM lesson_answers
            WHERE lesson_id = \(lessonID) ORDER BY answered_at, answerer
            """, logger: logger)
        var out: [StoredAnswer] = []
        for try await (lesson, step, answerer, name, choice, at) in rows.decode((String, String, String, String?, Int, Double).self) {
            out.append(StoredAnswer(lessonID: lesson, stepID: step, answerer: answerer, name: name, choice: choice,
                                    answeredAt: Date(timeIntervalSince1970: at)))
        }
        return out
    }

    private static let lessonColumns = "id, owner_id, title, steps, step_count, created_at, updated_at"

    private func lessonRows(_ rows: PostgresRowSequence) async throws -> [StoredLesson] {
        var out: [StoredLesson] = []
        for try await (id, owner, title, steps, count, created, updated) in rows.decode((String, String, String, String, Int, Double, Double).self) {
            out.append(StoredLesson(id: id, ownerID: owner, title: title, steps: steps, stepCount: count,
                                    createdAt: Date(timeIntervalSince1970: created), updatedAt: Date(timeIntervalSince1970: updated)))
        }
        return out
    }
}
