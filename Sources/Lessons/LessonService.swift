import Foundation
import Storage

/// Lessons over a lesson store: made and changed by their owner, read by anyone with the link,
/// answered by anyone who says who they are (an account or a guest key), tallied for the owner.
public struct LessonService: Sendable {
    let store: any LessonStore
    public let limits: LessonLimits

    public init(store: any LessonStore, limits: LessonLimits = LessonLimits()) {
        self.store = store; self.limits = limits
    }

    /// A lesson as its owner's list shows it.
    public struct Summary: Sendable, Encodable {
        public var id: String
        public var title: String
        public var steps: Int
        public var updatedAt: Date
    }

    public func create(_ draft: LessonDraft, ownerID: String, now: Date = Date()) async throws -> Lesson {
        let (title, steps) = try draft.checked(limits, newID: Self.newStepID)
        let lesson = Lesson(id: "l" + RandomToken.hex(bytes: 10), ownerID: ownerID, title: title, steps: steps, createdAt: now, updatedAt: now)
        guard try await store.createLesson(try Self.stored(lesson), limitPerOwner: limits.lessonsPerAccount) else {
            throw LessonError(.conflict, "you have \(limits.lessonsPerAccount) lessons, the most an account may; delete one first")
        }
        return lesson
    }

    public func lesson(id: String) async throws -> Lesson {
        guard LessonDraft.isID(id), let stored = try await store.lesson(id: id) else {
            throw LessonError(.notFound, "no lesson \(id.prefix(64))")
        }
        return try Self.lesson(stored)
    }

    public func lessons(ownerID: String) async throws -> [Summary] {
        try await store.lessons(ownerID: ownerID).map { Summary(id: $0.id, title: $0.title, steps: $0.stepCount, updatedAt: $0.updatedAt) }
    }

    /// Replaces the lesson's title and steps (its owner only): reordering, editing and deleting
    /// steps all come this way. Answers to steps it no longer has go with them.
    public func replace(id: String, with draft: LessonDraft, by accountID: String, now: Date = Date()) async throws -> Lesson {
        var lesson = try await self.lesson(id: id)
        guard lesson.ownerID == accountID else { throw LessonError(.forbidden, "lesson \(id) is someone else's: only its owner changes it") }
        let (title, steps) = try draft.checked(limits, newID: Self.newStepID)
        lesson.title = title; lesson.steps = steps; lesson.updatedAt = now
        guard try await store.replaceLesson(try Self.stored(lesson), stepIDs: steps.map(\.id)) else {
            throw LessonError(.notFound, "no lesson \(id.prefix(64))")
        }
        return lesson
    }

    /// Deletes the lesson and its answers: its owner or an administrator.
    public func delete(id: String, by accountID: String, isAdmin: Bool) async throws {
        let lesson = try await self.lesson(id: id)
        guard lesson.ownerID == accountID || isAdmin else {
            throw LessonError(.forbidden, "lesson \(id) is someone else's: only its owner or an administrator deletes it")
        }
        _ = try await store.deleteLesson(id: id)
    }

    /// Keeps `answerer`'s answer to the step's question (replacing an earlier one); whether it is
    /// right, or nil when the question has no right answer.
    public func answer(lessonID: String, stepID: String, choice: Int, answerer: String, name: String?, now: Date = Date()) async throws -> Bool? {
        let lesson = try await self.lesson(id: lessonID)
        guard let step = lesson.steps.first(where: { $0.id == stepID }) else {
            throw LessonError(.notFound, "step: lesson \(lessonID) has no step \(stepID.prefix(64))")
        }
        guard let question = step.question else { throw LessonError(.badRequest, "step: step \(stepID) asks no question") }
        guard question.choices.indices.contains(choice) else {
            throw LessonError(.badRequest, "choice \(choice): the index of one of the \(question.choices.count) choices (0 to \(question.choices.count - 1))")
        }
        let stored = StoredAnswer(lessonID: lessonID, stepID: stepID, answerer: answerer, name: name, choice: choice, answeredAt: now)
        guard try await store.answer(stored, limitPerLesson: limits.answersPerLesson) else {
            throw LessonError(.conflict, "lesson \(lessonID) holds \(limits.answersPerLesson) answers, the most it keeps")
        }
        return question.answer.map { $0 == choice }
    }

    /// The answers to each question of the lesson (its owner only).
    public func tally(lessonID: String, by accountID: String) async throws -> LessonTally {
        let lesson = try await self.lesson(id: lessonID)
        guard lesson.ownerID == accountID else { throw LessonError(.forbidden, "only the lesson's owner sees its answers") }
        return LessonTally(lesson, answers: try await store.answers(lessonID: lessonID))
    }

    static func newStepID() -> String { "s" + RandomToken.hex(bytes: 8) }

    // The steps as the store keeps them: JSON text, in the API's own form.
    static let encoder: JSONEncoder = {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return e
    }()

    static func stored(_ lesson: Lesson) throws -> StoredLesson {
        StoredLesson(id: lesson.id, ownerID: lesson.ownerID, title: lesson.title,
                     steps: String(decoding: try encoder.encode(lesson.steps), as: UTF8.self), stepCount: lesson.steps.count,
                     createdAt: lesson.createdAt, updatedAt: lesson.updatedAt)
    }

    static func lesson(_ s: StoredLesson) throws -> Lesson {
        Lesson(id: s.id, ownerID: s.ownerID, title: s.title, steps: try JSONDecoder().decode([LessonStep].self, from: Data(s.steps.utf8)),
               createdAt: s.createdAt, updatedAt: s.updatedAt)
    }
}
