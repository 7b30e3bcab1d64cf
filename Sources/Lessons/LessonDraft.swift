import Foundation

/// A lesson as a client sends it (`POST`/`PUT /api/lessons`): checked field by field into steps,
/// each error naming its field (`steps[2].question.choices[1]`).
public struct LessonDraft: Sendable, Decodable {
    public var title: String
    public var steps: [StepDraft]?

    public struct StepDraft: Sendable, Decodable {
        public var id: String?
        public var molecule: String
        public var view: String?
        public var text: String?
        public var question: LessonQuestion?

        public init(id: String?, molecule: String, view: String?, text: String?, question: LessonQuestion?) {
            self.id = id; self.molecule = molecule; self.view = view; self.text = text; self.question = question
        }
    }

    public init(title: String, steps: [StepDraft]?) { self.title = title; self.steps = steps }

    /// The title and steps, checked against `limits`; steps without an id get a new one (`newID`).
    public func checked(_ limits: LessonLimits, newID: () -> String) throws(LessonError) -> (title: String, steps: [LessonStep]) {
        let title = self.title.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...limits.titleLength).contains(title.count), !title.contains(where: \.isNewline), Self.isText(title) else {
            throw LessonError(.badRequest, "title: 1 to \(limits.titleLength) characters on one line")
        }
        let drafts = steps ?? []
        guard drafts.count <= limits.steps else {
            throw LessonError(.badRequest, "steps: a lesson has at most \(limits.steps) steps; this one has \(drafts.count)")
        }
        var seen = Set<String>()
        var out: [LessonStep] = []
        for (i, draft) in drafts.enumerated() {
            let field = "steps[\(i)]"
            let id = draft.id ?? newID()
            guard Self.isID(id) else { throw LessonError(.badRequest, "\(field).id '\(id.prefix(64))': 1 to 64 letters, digits, '-' or '_'") }
            guard seen.insert(id).inserted else { throw LessonError(.badRequest, "\(field).id '\(id)': two steps have this id") }
            guard Self.isID(draft.molecule) else {
                throw LessonError(.badRequest, "\(field).molecule '\(draft.molecule.prefix(64))': a PDB ID or library id (1 to 64 letters, digits, '-' or '_')")
            }
            let view = draft.view ?? ""
            guard view.utf8.count <= limits.viewLength, view.utf8.allSatisfy(Self.isViewByte) else {
                throw LessonError(.badRequest, "\(field).view: at most \(limits.viewLength) characters of a view link's query (letters, digits and -_.:,;~=&%)")
            }
            let text = draft.text ?? ""
            guard text.count <= limits.textLength, Self.isText(text) else {
                throw LessonError(.badRequest, "\(field).text: at most \(limits.textLength) characters of text (no control characters but new lines and tabs); this has \(text.count)")
            }
            var question = draft.question
            if let q = draft.question { question = try Self.checked(q, field: "\(field).question", limits) }
            out.append(LessonStep(id: id, molecule: draft.molecule, view: view, text: text, question: question))
        }
        return (title, out)
    }

    static func checked(_ q: LessonQuestion, field: String, _ limits: LessonLimits) throws(LessonError) -> LessonQuestion {
        let prompt = q.prompt.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...limits.promptLength).contains(prompt.count), isText(prompt) else {
            throw LessonError(.badRequest, "\(field).prompt: 1 to \(limits.promptLength) characters")
        }
        guard limits.choices.contains(q.choices.count) else {
            throw LessonError(.badRequest, "\(field).choices: \(limits.choices.lowerBound) to \(limits.choices.upperBound) choices; this has \(q.choices.count)")
        }
        var choices: [String] = []
        for (k, raw) in q.choices.enumerated() {
            let choice = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            guard (1...limits.choiceLength).contains(choice.count), !choice.contains(where: \.isNewline), isText(choice) else {
                throw LessonError(.badRequest, "\(field).choices[\(k)]: 1 to \(limits.choiceLength) characters on one line")
            }
            choices.append(choice)
        }
        if let answer = q.answer, !choices.indices.contains(answer) {
            throw LessonError(.badRequest, "\(field).answer \(answer): the index of the right choice (0 to \(choices.count - 1)), or null when none is right")
        }
        return LessonQuestion(prompt: prompt, choices: choices, answer: q.answer)
    }

    /// Letters, digits, '-' and '_', 1 to 64 of them: step, lesson and molecule ids.
    public static func isID(_ s: String) -> Bool {
        (1...64).contains(s.utf8.count) && s.utf8.allSatisfy { b in
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x2D || b == 0x5F
        }
    }

    /// What a view link's query is made of: ids and numbers, and `-_.:,;~=&%`.
    static func isViewByte(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
            || [0x2D, 0x5F, 0x2E, 0x3A, 0x2C, 0x3B, 0x7E, 0x3D, 0x26, 0x25].contains(b)
    }

    /// Text without control characters other than new lines and tabs.
    static func isText(_ s: String) -> Bool {
        s.unicodeScalars.allSatisfy { u in u == "\n" || u == "\t" || u == "\r" || !(u.value < 0x20 || (0x7F...0x9F).contains(u.value)) }
    }
}
