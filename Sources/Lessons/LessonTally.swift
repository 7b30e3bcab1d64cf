import Storage

/// The answers to a lesson's questions, question by question: how many chose each choice, and
/// the names of those who answered signed in (guests are counted, never named).
public struct LessonTally: Sendable, Encodable {
    public struct Question: Sendable, Encodable {
        public var step: String
        /// The step's place in the lesson, from 0.
        public var index: Int
        public var prompt: String
        public var choices: [String]
        public var answer: Int?
        public var counts: [Int]
        public var total: Int
        public var named: [Named]

        private enum CodingKeys: String, CodingKey { case step, index, prompt, choices, answer, counts, total, named }
        public func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(step, forKey: .step); try c.encode(index, forKey: .index); try c.encode(prompt, forKey: .prompt)
            try c.encode(choices, forKey: .choices); try c.encode(answer, forKey: .answer); try c.encode(counts, forKey: .counts)
            try c.encode(total, forKey: .total); try c.encode(named, forKey: .named)
        }
    }

    public struct Named: Sendable, Encodable {
        public var name: String
        public var choice: Int
    }

    public var questions: [Question]

    public init(_ lesson: Lesson, answers: [StoredAnswer]) {
        let byStep = Dictionary(grouping: answers, by: \.stepID)
        questions = lesson.steps.enumerated().compactMap { index, step in
            guard let q = step.question else { return nil }
            // An answer to a choice the author has since removed counts nowhere.
            let given = (byStep[step.id] ?? []).filter { q.choices.indices.contains($0.choice) }
            var counts = Array(repeating: 0, count: q.choices.count)
            for a in given { counts[a.choice] += 1 }
            let named = given.compactMap { a in a.name.map { Named(name: $0, choice: a.choice) } }
            return Question(step: step.id, index: index, prompt: q.prompt, choices: q.choices, answer: q.answer,
                            counts: counts, total: given.count, named: named)
        }
    }
}
