import Accounts
import Foundation
import Hummingbird
import Lessons
import Storage

/// Lessons over HTTP (`/api/lessons`): made, changed and deleted by their owner, read by anyone
/// with the link, answered by anyone who says who they are (an account, or a guest key), tallied
/// for the owner. The lessons themselves are `LessonService`'s; here are the forms and the limits
/// on how fast one person and one address may answer.
struct LessonRoutes: Sendable {
    let service: LessonService
    /// Owners' names.
    let accounts: any AccountStore
    /// Answers per person (an account or a guest key) and per address: a class of 40 phones
    /// behind one address answering 40 questions is 1,600 answers, well within the address's.
    let answersPerPerson: RateLimiter
    let answersPerAddress: RateLimiter
    /// A lesson of 40 steps at their longest, in JSON with escapes, is under this.
    static let maximumBodyBytes = 1 << 20

    init(service: LessonService, accounts: any AccountStore) {
        self.service = service
        self.accounts = accounts
        answersPerPerson = RateLimiter(burst: 60, per: 60)
        answersPerAddress = RateLimiter(burst: 3_000, per: 60)
    }

    func register(on api: RouterGroup<ServerContext>) {
        api.get("lessons") { request, context in try await mine(request, context) }
        api.post("lessons") { request, context in try await create(request, context) }
        api.get("lessons/:lesson") { _, context in try await read(context) }
        api.put("lessons/:lesson") { request, context in try await replace(request, context) }
        api.delete("lessons/:lesson") { request, context in try await delete(request, context) }
        api.post("lessons/:lesson/answers") { request, context in try await answer(request, context) }
        api.get("lessons/:lesson/answers") { request, context in try await tally(request, context) }
    }

    static let example = #"{"title": "…", "steps": [{"molecule": "1AKE", "view": "style=cartoon", "text": "…", "question": null}]}"#

    /// A lesson as the API shows it: the lesson, its owner's name, and whether the asker owns it.
    struct LessonJSON: Encodable {
        var lesson: Lesson
        var ownerName: String?
        var mine: Bool
        private enum K: String, CodingKey { case id, title, ownerID, ownerName, mine, steps, createdAt, updatedAt }
        func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: K.self)
            try c.encode(lesson.id, forKey: .id); try c.encode(lesson.title, forKey: .title)
            try c.encode(lesson.ownerID, forKey: .ownerID); try c.encode(ownerName, forKey: .ownerName)
            try c.encode(mine, forKey: .mine); try c.encode(lesson.steps, forKey: .steps)
            try c.encode(lesson.createdAt, forKey: .createdAt); try c.encode(lesson.updatedAt, forKey: .updatedAt)
        }
    }

    func answerJSON(_ lesson: Lesson, for identity: Identity, ownerName: String? = nil, status: HTTPResponse.Status = .ok) async throws -> Response {
        let name: String?
        if let ownerName { name = ownerName } else { name = try await call { try await accounts.account(id: lesson.ownerID)?.name } }
        return try Responses.encoded(LessonJSON(lesson: lesson, ownerName: name, mine: identity.account?.id == lesson.ownerID), status: status)
    }

    func mine(_ request: Request, _ context: ServerContext) async throws -> Response {
        let (account, _) = try context.requireAccount(request, change: false)
        struct List: Encodable { var lessons: [LessonService.Summary] }
        return try Responses.encoded(List(lessons: try await call { try await service.lessons(ownerID: account.id) }))
    }

    func create(_ request: Request, _ context: ServerContext) async throws -> Response {
        let (account, identity) = try context.requireAccount(request, change: true)
        let draft = try await JSONBody.decode(LessonDraft.self, from: request, example: Self.example, limit: Self.maximumBodyBytes)
        let lesson = try await call { try await service.create(draft, ownerID: account.id) }
        var response = try await answerJSON(lesson, for: identity, ownerName: account.name, status: .created)
        response.headers[.location] = "/api/lessons/\(lesson.id)"
        return response
    }

    func read(_ context: ServerContext) async throws -> Response {
        let id = try context.parameters.require("lesson")
        let identity = try context.checkedIdentity()
        let lesson = try await call { try await service.lesson(id: id) }
        return try await answerJSON(lesson, for: identity)
    }

    func replace(_ request: Request, _ context: ServerContext) async throws -> Response {
        let id = try context.parameters.require("lesson")
        let (account, identity) = try context.requireAccount(request, change: true)
        let draft = try await JSONBody.decode(LessonDraft.self, from: request, example: Self.example, limit: Self.maximumBodyBytes)
        let lesson = try await call { try await service.replace(id: id, with: draft, by: account.id) }
        return try await answerJSON(lesson, for: identity, ownerName: account.name)
    }

    func delete(_ request: Request, _ context: ServerContext) async throws -> Response {
        let id = try context.parameters.require("lesson")
        let (account, _) = try context.requireAccount(request, change: true)
        try await call { try await service.delete(id: id, by: account.id, isAdmin: account.isAdmin) }
        return Response(status: .noContent)
    }

    func answer(_ request: Request, _ context: ServerContext) async throws -> Response {
        let id = try context.parameters.require("lesson")
        let identity = try context.identityForChange(request)
        guard let participant = identity.participant else {
            throw APIError(.badRequest, "say who answers: sign in, or send a guest key (X-Guest-Key: 16 to 64 letters, digits, '-' or '_')")
        }
        struct Given: Decodable { var step: String; var choice: Int }
        let given = try await JSONBody.decode(Given.self, from: request, example: #"{"step": "s…", "choice": 0}"#)
        let answerer = participant.isGuest ? "guest:\(participant.id)" : participant.id
        try call {
            try RateLimiter.take(all: [(answersPerAddress, context.clientAddress, "answers", "your address"),
                                       (answersPerPerson, answerer, "answers", "you")])
        }
        let correct = try await call {
            try await service.answer(lessonID: id, stepID: given.step, choice: given.choice, answerer: answerer, name: identity.account?.name)
        }
        return Responses.json(JSONText.object(["step": .string(given.step), "choice": .int(given.choice),
                                               "correct": correct.map { .bool($0) } ?? .null]))
    }

    func tally(_ request: Request, _ context: ServerContext) async throws -> Response {
        let id = try context.parameters.require("lesson")
        let (account, _) = try context.requireAccount(request, change: false)
        return try Responses.encoded(try await call { try await service.tally(lessonID: id, by: account.id) })
    }
}
