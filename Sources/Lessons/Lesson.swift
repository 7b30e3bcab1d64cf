import Foundation

/// A lesson: an ordered list of steps, each a view of a molecule with a short text and, if the
/// author wants one, a question. Anyone with its link reads it; only its owner changes it.
public struct Lesson: Sendable, Equatable, Encodable {
    public var id: String
    public var ownerID: String
    public var title: String
    public var steps: [LessonStep]
    public var createdAt: Date
    public var updatedAt: Date
}

/// One step: the view (what Explore's view link holds: the molecule, and after `?` its style,
/// colours, highlight, labels, measurements and camera), the text, and a question or none.
public struct LessonStep: Sendable, Equatable, Codable {
    /// Kept through edits, so answers stay with their step when steps move.
    public var id: String
    public var molecule: String
    /// The query of Explore's view link (`style=…&view=q…;d…;t…`), "" for the plain view.
    public var view: String
    /// Paragraphs with **bold**, *italic* and [links](https://…): the web app renders it as text.
    public var text: String
    public var question: LessonQuestion?

    public init(id: String, molecule: String, view: String = "", text: String = "", question: LessonQuestion? = nil) {
        self.id = id; self.molecule = molecule; self.view = view; self.text = text; self.question = question
    }

    private enum CodingKeys: String, CodingKey { case id, molecule, view, text, question }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id); try c.encode(molecule, forKey: .molecule); try c.encode(view, forKey: .view)
        try c.encode(text, forKey: .text); try c.encode(question, forKey: .question)  // null when there is none
    }
}

/// A multiple-choice question: one right answer (its index), or none when every choice is an opinion.
public struct LessonQuestion: Sendable, Equatable, Codable {
    public var prompt: String
    public var choices: [String]
    public var answer: Int?

    public init(prompt: String, choices: [String], answer: Int?) {
        self.prompt = prompt; self.choices = choices; self.answer = answer
    }

    private enum CodingKeys: String, CodingKey { case prompt, choices, answer }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(prompt, forKey: .prompt); try c.encode(choices, forKey: .choices)
        try c.encode(answer, forKey: .answer)  // null: no choice is right or wrong
    }
}

/// How big lessons may be, and how many an account and a lesson's answers may hold.
public struct LessonLimits: Sendable {
    public var titleLength = 120
    public var steps = 40
    public var textLength = 2_000
    public var viewLength = 1_000
    public var promptLength = 300
    public var choices = 2...6
    public var choiceLength = 200
    public var lessonsPerAccount = 100
    /// Answers one lesson keeps (a person's answer to a step counts once, however often changed).
    public var answersPerLesson = 50_000
    public init() {}
}

/// Why a lesson request cannot be done, as the API says it.
public struct LessonError: Error, Sendable, Equatable {
    public enum Kind: Sendable { case badRequest, notFound, forbidden, conflict }
    public let kind: Kind
    public let message: String
    public init(_ kind: Kind, _ message: String) { self.kind = kind; self.message = message }
}
