import NIOConcurrencyHelpers

/// Live sockets per room and per client address, so that one client cannot hold thousands of
/// sockets, nor one room take every socket of the server.
final class SocketCounter: Sendable {
    let perRoom: Int
    let perAddress: Int
    private let counts = NIOLockedValueBox((rooms: [String: Int](), addresses: [String: Int]()))

    init(limits: ServerLimits) { perRoom = limits.socketsPerRoom; perAddress = limits.socketsPerAddress }

    /// Counts the socket in, or gives the refusal's code and message.
    func admit(room: String, address: String) -> (code: String, message: String)? {
        counts.withLockedValue { c in
            if c.rooms[room, default: 0] >= perRoom { return ("room-full", "this room has \(perRoom) people connected, the most it takes") }
            if c.addresses[address, default: 0] >= perAddress {
                return ("too-many-sockets", "your address has \(perAddress) live rooms open, the most it may")
            }
            c.rooms[room, default: 0] += 1
            c.addresses[address, default: 0] += 1
            return nil
        }
    }

    func release(room: String, address: String) {
        counts.withLockedValue { c in
            c.rooms[room] = c.rooms[room].flatMap { $0 > 1 ? $0 - 1 : nil }
            c.addresses[address] = c.addresses[address].flatMap { $0 > 1 ? $0 - 1 : nil }
        }
    }
}
