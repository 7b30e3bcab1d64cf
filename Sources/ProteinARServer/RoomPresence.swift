import Foundation

/// Who is in each room on this server, and where they look: every change goes to everyone in the
/// room as the full list (rooms are small; a list is simpler for clients than joins and leaves).
actor RoomPresence {
    struct View: Codable, Sendable {
        var position: [Double]
        var target: [Double]
        var isValid: Bool {
            position.count == 3 && target.count == 3 && (position + target).allSatisfy { $0.isFinite && abs($0) <= 10_000 }
        }
    }

    struct Peer: Codable, Sendable {
        var connection: String
        var id: String
        var name: String
        var role: String
        var view: View?
    }

    private var rooms: [String: [String: (peer: Peer, channel: AsyncStream<String>.Continuation)]] = [:]

    /// Joins and returns the stream of presence lists for this connection (the first one at once).
    func join(_ room: String, _ peer: Peer) -> AsyncStream<String> {
        let (stream, channel) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingNewest(1))
        rooms[room, default: [:]][peer.connection] = (peer, channel)
        broadcast(room)
        return stream
    }

    func update(_ room: String, connection: String, view: View) {
        guard rooms[room]?[connection] != nil else { return }
        rooms[room]?[connection]?.peer.view = view
        broadcast(room)
    }

    func leave(_ room: String, connection: String) {
        rooms[room]?[connection]?.channel.finish()
        rooms[room]?[connection] = nil
        if rooms[room]?.isEmpty == true { rooms[room] = nil }
        broadcast(room)
    }

    private func broadcast(_ room: String) {
        guard let members = rooms[room] else { return }
        struct Message: Encodable { var type = "presence"; var peers: [Peer] }
        let peers = members.values.map(\.peer).sorted { $0.connection < $1.connection }
        guard let data = try? RoomJSON.encoder.encode(Message(peers: peers)) else { return }
        let text = String(decoding: data, as: UTF8.self)
        // Only the newest list matters: a slow reader skips the lists it could not take in time.
        for member in members.values { member.channel.yield(text) }
    }
}
