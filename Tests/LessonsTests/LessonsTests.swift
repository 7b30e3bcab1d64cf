import Foundation
import Lessons
import Storage
import TestSupport
import Testing

/// Lessons without HTTP: every limit at and past its edge with the field named, and the service
/// over both stores (owners, step ids kept through reordering, answers replaced and tallied).
@Suite("Lessons")
struct LessonsTests {
    typealias Step = LessonDraft.StepDraft
    static let limits = LessonLimits()

    static func step(_ molecule: String = "1AKE", id: String? = nil, view: String? = "style=cartoon&view=q0,0,0,1;d0.8;t0,0,0",
                     text: String? = "The **lid** closes.", question: LessonQuestion? = nil) -> Step {
        Step(id: id, molecule: molecule, view: view, text: text, question: question)
    }

    static func refusal(_ draft: LessonDraft) -> String? {
        do {
            var made = 0
            _ = try draft.checked(limits, newID: { made += 1; return "s-new-\(made)" })
            return nil
        } catch {
            return error.message
        }
    }

    @Test("each limit holds at its edge and refuses past it, naming the field")
    func limitsAtAndPast() {
        let q = { (prompt: String, choices: [String], answer: Int?) in LessonQuestion(prompt: prompt, choices: choices, answer: answer) }
        let fine: [LessonDraft] = [
            LessonDraft(title: String(repeating: "t", count: 120), steps: nil),
            LessonDraft(title: "x", steps: (0..<40).map { _ in Self.step() }),
            LessonDraft(title: "x", steps: [Self.step(text: String(repeating: "é", count: 2_000))]),
            LessonDraft(title: "x", steps: [Self.step(view: String(repeating: "a", count: 1_000))]),
            LessonDraft(title: "x", steps: [Self.step(question: q(String(repeating: "p", count: 300), ["a", "b"], nil))]),
            LessonDraft(title: "x", steps: [Self.step(question: q("p", (0..<6).map { String(repeating: "c", count: 200 - $0) }, 5))]),
        ]
        for draft in fine { #expect(Self.refusal(draft) == nil, "\(Self.refusal(draft) ?? "")") }
        let refused: [(LessonDraft, String)] = [
            (LessonDraft(title: "", steps: nil), "title"),
            (LessonDraft(title: String(repeating: "t", count: 121), steps: nil), "title"),
            (LessonDraft(title: "two\nlines", steps: nil), "title"),
            (LessonDraft(title: "x", steps: (0..<41).map { _ in Self.step() }), "steps: a lesson has at most 40"),
            (LessonDraft(title: "x", steps: [Self.step(), Self.step(text: String(repeating: "é", count: 2_001))]), "steps[1].text"),
            (LessonDraft(title: "x", steps: [Self.step(text: "bell \u{7}")]), "steps[0].text"),
            (LessonDraft(title: "x", steps: [Self.step(view: String(repeating: "a", count: 1_001))]), "steps[0].view"),
            (LessonDraft(title: "x", steps: [Self.step(view: "style=<b>")]), "steps[0].view"),
            (LessonDraft(title: "x", steps: [Self.step("1AKE/../x")]), "steps[0].molecule"),
            (LessonDraft(title: "x", steps: [Self.step(id: "a b")]), "steps[0].id"),
            (LessonDraft(title: "x", steps: [Self.step(id: "s1"), Self.step(id: "s1")]), "steps[1].id"),
            (LessonDraft(title: "x", steps: [Self.step(question: q("", ["a", "b"], nil))]), "steps[0].question.prompt"),
            (LessonDraft(title: "x", steps: [Self.step(question: q(String(repeating: "p", count: 301), ["a", "b"], nil))]), "question.prompt"),
            (LessonDraft(title: "x", steps: [Self.step(question: q("p", ["a"], nil))]), "steps[0].question.choices: 2 to 6"),
            (LessonDraft(title: "x", steps: [Self.step(question: q("p", (0..<7).map(String.init), nil))]), "question.choices: 2 to 6"),
            (LessonDraft(title: "x", steps: [Self.step(question: q("p", ["a", ""], nil))]), "steps[0].question.choices[1]"),
            (LessonDraft(title: "x", steps: [Self.step(question: q("p", ["a", String(repeating: "c", count: 201)], nil))]), "question.choices[1]"),
            (LessonDraft(title: "x", steps: [Self.step(question: q("p", ["a", "b"], 2))]), "steps[0].question.answer 2"),
            (LessonDraft(title: "x", steps: [Self.step(question: q("p", ["a", "b"], -1))]), "question.answer -1"),
        ]
        for (draft, words) in refused {
            let message = Self.refusal(draft)
            #expect(message?.contains(words) == true, "expected '\(words)' in \(message ?? "an acceptance")")
        }
    }

    /// The same lesson, its times to within a millisecond (what a store's floating-point seconds keep).
    static func same(_ a: Lesson, _ b: Lesson) -> Bool {
        var b2 = b
        guard abs(a.createdAt.timeIntervalSince(b.createdAt)) < 0.001, abs(a.updatedAt.timeIntervalSince(b.updatedAt)) < 0.001 else { return false }
        b2.createdAt = a.createdAt; b2.updatedAt = a.updatedAt
        return a == b2
    }

    @Test("made, read, listed, replaced (step ids kept), answered, tallied and deleted; others refused", arguments: StoreKind.allCases)
    func service(kind: StoreKind) async throws {
        let (store, cleanup) = try await TestStores.open(kind, cacheLimit: 1 << 20)
        defer { Task { await cleanup() } }
        try await store.migrate()
        for (id, email) in [("ada", "ada@example.org"), ("ben", "ben@example.org")] {
            _ = try await store.createAccount(StoredAccount(id: id, email: email, name: id.capitalized, passwordHash: "h", createdAt: Date()))
        }
        var limits = LessonLimits()
        limits.lessonsPerAccount = 2
        limits.answersPerLesson = 3
        let service = LessonService(store: store, limits: limits)
        let question = LessonQuestion(prompt: "Which domain moves most?", choices: ["LID", "CORE", "NMP"], answer: 0)
        let made = try await service.create(LessonDraft(title: " Adenylate kinase ", steps: [Self.step(), Self.step("4AKE", question: question)]),
                                            ownerID: "ada")
        #expect(made.title == "Adenylate kinase" && made.steps.count == 2 && made.id.hasPrefix("l"))
        #expect(Self.same(try await service.lesson(id: made.id), made))
        #expect(try await service.lessons(ownerID: "ada").map(\.steps) == [2])
        #expect(try await service.lessons(ownerID: "ben").isEmpty)
        let asked = made.steps[1].id

        // Answers: right, wrong, replaced; a step without a question, a choice out of range, an unknown step.
        #expect(try await service.answer(lessonID: made.id, stepID: asked, choice: 1, answerer: "guest:g1", name: nil) == false)
        #expect(try await service.answer(lessonID: made.id, stepID: asked, choice: 0, answerer: "guest:g1", name: nil) == true)
        #expect(try await service.answer(lessonID: made.id, stepID: asked, choice: 2, answerer: "ben", name: "Ben") == false)
        await #expect(throws: LessonError.self) { _ = try await service.answer(lessonID: made.id, stepID: made.steps[0].id, choice: 0, answerer: "ben", name: nil) }
        await #expect(throws: LessonError.self) { _ = try await service.answer(lessonID: made.id, stepID: asked, choice: 3, answerer: "ben", name: nil) }
        await #expect(throws: LessonError.self) { _ = try await service.answer(lessonID: made.id, stepID: "nope", choice: 0, answerer: "ben", name: nil) }
        var tally = try await service.tally(lessonID: made.id, by: "ada")
        #expect(tally.questions.count == 1 && tally.questions[0].counts == [1, 0, 1] && tally.questions[0].total == 2)
        #expect(tally.questions[0].named.map(\.name) == ["Ben"], "guests are counted, never named")
        await #expect(throws: LessonError.self) { _ = try await service.tally(lessonID: made.id, by: "ben") }
        // The lesson keeps at most 3 answers: a third person may answer, a fourth may not; changing one's answer still may.
        _ = try await service.answer(lessonID: made.id, stepID: asked, choice: 1, answerer: "guest:g2", name: nil)
        await #expect(throws: LessonError.self) { _ = try await service.answer(lessonID: made.id, stepID: asked, choice: 1, answerer: "guest:g3", name: nil) }
        _ = try await service.answer(lessonID: made.id, stepID: asked, choice: 1, answerer: "ben", name: "Ben")

        // Reordered: the ids (and so the answers) stay with their steps; another account may not.
        let reordered = LessonDraft(title: "Closing", steps: made.steps.reversed().map {
            Step(id: $0.id, molecule: $0.molecule, view: $0.view, text: $0.text, question: $0.question)
        })
        await #expect(throws: LessonError.self) { _ = try await service.replace(id: made.id, with: reordered, by: "ben") }
        #expect(Self.same(try await service.lesson(id: made.id), made), "a refused change changes nothing")
        let replaced = try await service.replace(id: made.id, with: reordered, by: "ada")
        #expect(replaced.steps.map(\.id) == [asked, made.steps[0].id])
        tally = try await service.tally(lessonID: made.id, by: "ada")
        #expect(tally.questions[0].index == 0 && tally.questions[0].counts == [1, 2, 0])
        // The question's step deleted: its answers go with it.
        _ = try await service.replace(id: made.id, with: LessonDraft(title: "Closing", steps: [Self.step(id: made.steps[0].id)]), by: "ada")
        #expect(try await store.answers(lessonID: made.id).isEmpty)

        // Two lessons per account here: the third is refused.
        _ = try await service.create(LessonDraft(title: "Second", steps: nil), ownerID: "ada")
        await #expect(throws: LessonError.self) { _ = try await service.create(LessonDraft(title: "Third", steps: nil), ownerID: "ada") }
        // Deleting: not another account; an administrator may.
        await #expect(throws: LessonError.self) { try await service.delete(id: made.id, by: "ben", isAdmin: false) }
        try await service.delete(id: made.id, by: "ben", isAdmin: true)
        await #expect(throws: LessonError.self) { _ = try await service.lesson(id: made.id) }
        // Kept across migrations.
        try await store.migrate()
        #expect(try await service.lessons(ownerID: "ada").map(\.title) == ["Second"])
    }
}
