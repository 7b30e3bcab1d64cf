import Accounts
import Foundation
import Hummingbird
import LiveRooms
import RoomHost
import Rooms
import Storage

/// Membership by invitation (issue 29, finding 10): the owner invites an e-mail, and whoever signs
/// in with it accepts or declines. Inviting answers the same (`202`, the same body) whether or not
/// an account has the e-mail, and does the same work either way: nothing looks the e-mail up, the
/// invitation is stored by room and e-mail, so an e-mail that registers later finds it. Nobody
/// becomes a member without accepting.
struct InvitationRoutes: Sendable {
    let host: RoomHost
    let accounts: AccountRoutes
    let budget: InvitationBudget
    /// Members and pending invitations of one room together.
    static let peoplePerRoom = 1_000
    private var invitations: any InvitationStore { accounts.invitations }

    func register(on api: RouterGroup<ServerContext>) {
        api.post("rooms/:room/invitations") { request, context in try await invite(request, context) }
        // The route's first name (it added a member at once): the same answer as above.
        api.post("rooms/:room/members") { request, context in try await invite(request, context) }
        api.get("rooms/:room/invitations") { request, context in try await pending(request, context) }
        api.delete("rooms/:room/invitations/:email") { request, context in try await withdraw(request, context) }
        api.get("invitations") { request, context in try await mine(request, context) }
        api.post("invitations/:room/accept") { request, context in try await accept(request, context) }
        api.delete("invitations/:room") { request, context in try await decline(request, context) }
    }

    /// What the owner is told about a room's invitations: the e-mail just invited (if any) and
    /// every pending one, by e-mail.
    struct Pending: Encodable {
        var invited: String?
        var invitations: [String]
    }

    func invite(_ request: Request, _ context: ServerContext) async throws -> Response {
        let id = try context.parameters.require("room")
        struct Invite: Decodable { var email: String }
        let body = try await JSONBody.decode(Invite.self, from: request, example: #"{"email": "…"}"#)
        let email = try AccountService.validEmail(body.email)
        let (account, settings) = try await accounts.owner(of: id, in: host, request, context)
        guard email != account.email else { throw APIError(.badRequest, "email: that is your own e-mail, and you own this room") }
        try call { try budget.spend(account.id) }
        let invitation = StoredInvitation(roomID: id, email: email, invitedBy: account.id, invitedAt: Date())
        guard try await invitations.invite(invitation, limit: max(0, Self.peoplePerRoom - settings.members.count)) else {
            budget.giveBack(account.id)
            throw APIError(.conflict, "a room has at most \(Self.peoplePerRoom) members and pending invitations together; withdraw some first")
        }
        return try Responses.encoded(Pending(invited: email, invitations: try await emails(id)), status: .accepted)
    }

    func pending(_ request: Request, _ context: ServerContext) async throws -> Response {
        let id = try context.parameters.require("room")
        _ = try await accounts.owner(of: id, in: host, request, context, change: false)
        return try Responses.encoded(Pending(invitations: try await emails(id)))
    }

    func withdraw(_ request: Request, _ context: ServerContext) async throws -> Response {
        let id = try context.parameters.require("room")
        let raw = try context.parameters.require("email")
        let email = try AccountService.validEmail(raw.removingPercentEncoding ?? raw)
        _ = try await accounts.owner(of: id, in: host, request, context)
        _ = try await invitations.deleteInvitation(roomID: id, email: email)
        return try Responses.encoded(Pending(invitations: try await emails(id)))
    }

    /// An invitation as its invitee sees it.
    struct Received: Encodable {
        var room: String
        var roomName: String
        var invitedBy: String?
        var invitedAt: Date
    }

    func mine(_ request: Request, _ context: ServerContext) async throws -> Response {
        let (account, _) = try context.requireAccount(request, change: false)
        var received: [Received] = []
        for invitation in try await invitations.invitations(email: account.email) {
            guard let settings = try await accounts.rooms.settings(id: invitation.roomID) else { continue }
            let inviter = try await accounts.store.account(id: invitation.invitedBy)
            received.append(Received(room: settings.id, roomName: settings.name, invitedBy: inviter?.name, invitedAt: invitation.invitedAt))
        }
        struct Mine: Encodable { var invitations: [Received] }
        return try Responses.encoded(Mine(invitations: received))
    }

    func accept(_ request: Request, _ context: ServerContext) async throws -> Response {
        let id = try context.parameters.require("room")
        let (account, _) = try context.requireAccount(request, change: true)
        guard try await invitations.invitations(email: account.email).contains(where: { $0.roomID == id }) else {
            throw Self.noInvitation(id, account)
        }
        let settings = try await call {
            try await host.modifySettings(of: id) { settings in
                guard settings.ownerID != account.id, !settings.members.contains(account.id) else { return }
                guard settings.members.count < Self.peoplePerRoom else {
                    throw APIError(.conflict, "room \(id) has \(Self.peoplePerRoom) members already, the most a room may have")
                }
                settings.members.insert(account.id)
            }
        }
        _ = try await invitations.deleteInvitation(roomID: id, email: account.email)
        struct Accepted: Encodable { var room: RoomJSON }
        return try Responses.encoded(Accepted(room: await accounts.rooms.summary(settings, for: Participant(id: account.id))))
    }

    func decline(_ request: Request, _ context: ServerContext) async throws -> Response {
        let id = try context.parameters.require("room")
        let (account, _) = try context.requireAccount(request, change: true)
        guard try await invitations.deleteInvitation(roomID: id, email: account.email) else { throw Self.noInvitation(id, account) }
        return Response(status: .noContent)
    }

    private func emails(_ room: String) async throws -> [String] {
        try await invitations.invitations(roomID: room).map(\.email)
    }

    /// Said only about the asker's own e-mail: it tells nobody anything about anyone else.
    private static func noInvitation(_ room: String, _ account: StoredAccount) -> APIError {
        APIError(.notFound, "no invitation to room \(room.prefix(64)) for \(account.email) (withdrawn, declined or accepted already)")
    }
}
