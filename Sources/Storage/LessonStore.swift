import Foundation

/// Lessons and the answers given to their questions. A lesson is kept as its owner, title and
/// steps (the steps as the JSON text the lessons module writes and reads: the store never looks
/// inside); an answer by lesson, step and who gave it, so a second answer replaces the first.
public protocol LessonStore: Sendable {
    /// Adds the lesson; false (nothing changed) when its owner has `limitPerOwner` lessons already.
    func createLesson(_ lesson: StoredLesson, limitPerOwner: Int) async throws -> Bool
    func lesson(id: String) async throws -> StoredLesson?
    /// The owner's lessons, most recently changed first.
    func lessons(ownerID: String) async throws -> [StoredLesson]
    /// Replaces the lesson's title, steps and change time, and deletes the answers of steps it no
    /// longer has (`stepIDs`: those it keeps); false when there is no lesson with that id.
    func replaceLesson(_ lesson: StoredLesson, stepIDs: [String]) async throws -> Bool
    /// Removes the lesson and its answers; false when there was none.
    func deleteLesson(id: String) async throws -> Bool
    /// Keeps the answer, replacing the same person's earlier answer to the same step; false
    /// (nothing changed) when it is new and the lesson holds `limitPerLesson` answers already.
    func answer(_ answer: StoredAnswer, limitPerLesson: Int) async throws -> Bool
    /// The lesson's answers, oldest first.
    func answers(lessonID: String) async throws -> [StoredAnswer]
}

public struct StoredLesson: Sendable, Equatable {
    public var id: String
    public var ownerID: String
    public var title: String
    /// The steps as JSON text (written and read by the lessons module).
    public var steps: String
    public var stepCount: Int
    public var createdAt: Date
    public var updatedAt: Date
    public init(id: String, ownerID: String, title: String, steps: String, stepCount: Int, createdAt: Date, updatedAt: Date) {
        self.id = id; self.ownerID = ownerID; self.title = title; self.steps = steps; self.stepCount = stepCount
        self.createdAt = createdAt; self.updatedAt = updatedAt
    }
}

public struct StoredAnswer: Sendable, Equatable {
    public var lessonID: String
    public var stepID: String
    /// Who answered: an account id, or `guest:` and a guest's id.
    public var answerer: String
    /// The answerer's name when they answered signed in with an account; guests are never named.
    public var name: String?
    public var choice: Int
    public var answeredAt: Date
    public init(lessonID: String, stepID: String, answerer: String, name: String?, choice: Int, answeredAt: Date) {
        self.lessonID = lessonID; self.stepID = stepID; self.answerer = answerer; self.name = name; self.choice = choice
        self.answeredAt = answeredAt
    }
}
