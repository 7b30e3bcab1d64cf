import Foundation
import Storage
@testable import LiveRooms
@testable import ProteinARServer
import Testing
import TestSupport

/// Presence between servers without a database: the notices one server's `RoomPresence` sends,
/// and what another makes of them.
@Suite("Presence across servers")
struct PresenceAcrossServersTests {
    static func peer(_ n: Int, name: String = "Ada") -> RoomPresence.Peer {
        RoomPresence.Peer(connection: String(format: "c%011x", n), id: "a\(n)", name: name, role: "member",
                          view: RoomPresence.View(position: [Double(n), 1.6, 2], target: [0, 1, 0]))
    }

    @Test("a crowd's notice is split under PostgreSQL's payload limit, and every part reads back")
    func splitting() throws {
        let peers = (0..<300).map { Self.peer($0, name: String(repeating: "n", count: 80)) }
        let left = (0..<200).map { String(format: "l%011x", $0) }
        let payloads = PresenceNotice.payloads(server: "s1", room: "room-1", peers: peers, left: left, watchers: 7)
        #expect(payloads.count > 1)
        #expect(payloads.allSatisfy { $0.utf8.count <= RoomNotice.maximumPayloadBytes })
        let read = payloads.compactMap(PresenceNotice.init(payload:))
        #expect(read.count == payloads.count)
        #expect(read.flatMap(\.peers) == peers && read.flatMap(\.left) == left)
        #expect(read.allSatisfy { $0.server == "s1" && $0.room == "room-1" && $0.watchers == 7 })
        // Nothing to say still says the server is there.
        #expect(PresenceNotice.payloads(server: "s1", room: "r", peers: [], left: [], watchers: 0).count == 1)
    }

    @Test("malformed notices from another server are ignored")
    func malformed() {
        var badView = Self.peer(1)
        badView.view = RoomPresence.View(position: [0, 0], target: [0, 0, 0])
        let bad = [
            "", "not json", "{}", #"{"server":"s","room":"r","peers":[],"left":[],"watchers":-1}"#,
            #"{"server":"","room":"r","peers":[],"left":[],"watchers":0}"#,
            String(repeating: " ", count: RoomNotice.maximumPayloadBytes + 1),
        ] + PresenceNotice.payloads(server: "s", room: "r", peers: [badView], left: [], watchers: 0)
        for payload in bad { #expect(PresenceNotice(payload: payload) == nil, "\(payload.prefix(80))") }
    }

    @Test("another server's peers join this server's presence, move, and leave; this server's changes are announced")
    func remotePeers() async throws {
        let presence = RoomPresence(sharedByServers: true)
        let notices = try #require(presence.notices)
        let local = Self.peer(1)
        let messages = await presence.join("r", local)
        var incoming = messages.makeAsyncIterator()
        let first = try #require(await incoming.next())
        #expect(first.contains("\"type\":\"presence\""))
        // The join is announced to the other servers.
        var outgoing = notices.makeAsyncIterator()
        let announced = try #require(await outgoing.next().flatMap(PresenceNotice.init(payload:)))
        #expect(announced.room == "r" && announced.peers == [local] && announced.server == presence.server)

        let remote = Self.peer(2)
        // Its own notice coming back changes nothing; another server's adds a peer.
        await presence.receive(PresenceNotice.payloads(server: presence.server, room: "r", peers: [remote], left: [], watchers: 0)[0])
        await presence.receive(PresenceNotice.payloads(server: "other", room: "r", peers: [remote], left: [], watchers: 3)[0])
        let joined = try await next(&incoming, containing: remote.connection)
        #expect(joined.contains("\"joined\"") && joined.contains("\"watchers\":3"))
        #expect(!joined.contains(local.connection + "\",\"id\""))  // the local join went out before
        var moved = remote
        moved.view = RoomPresence.View(position: [9, 9, 9], target: [0, 0, 0])
        await presence.receive(PresenceNotice.payloads(server: "other", room: "r", peers: [moved], left: [], watchers: 3)[0])
        #expect(try await next(&incoming, containing: "\"moved\":[{").contains(remote.connection))
        await presence.receive(PresenceNotice.payloads(server: "other", room: "r", peers: [], left: [remote.connection], watchers: 0)[0])
        let left = try await next(&incoming, containing: "\"left\":[\"\(remote.connection)\"]")
        #expect(left.contains("\"watchers\":0"))
    }

    /// The next presence message that contains `text`, skipping others (at most a few seconds).
    func next(_ iterator: inout AsyncStream<String>.Iterator, containing text: String) async throws -> String {
        for _ in 0..<20 {
            guard let message = await iterator.next() else { break }
            if message.contains(text) { return message }
        }
        throw TimedOut("a presence message with \(text)", after: .seconds(2))
    }
}
