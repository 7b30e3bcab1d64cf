import Foundation
import LiveRooms
import RoomHost
import Rooms
import Storage

/// The live socket's messages, as docs/rooms-protocol.md describes them: what a client sends
/// (`Incoming`) and what the server answers and broadcasts.
extension LiveConnection {
    struct Incoming: Decodable {
        var type: String
        var clientOpID: String?
        var operation: RoomOperation?
        var view: RoomPresence.View?

        /// The client id of a message that did not decode or was refused, when it can still be
        /// read: the first `"clientOpID":"…"` in the text, when it is a valid id. Found without a
        /// decoder, since a flood of refused messages must cost little each.
        static func clientOpID(in text: String) -> String? {
            let key = Array(#""clientOpID""#.utf8)
            let bytes = Array(text.utf8)
            func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }
            var start = 0
            while start + key.count <= bytes.count {
                defer { start += 1 }
                guard bytes[start] == key[0], bytes[start..<start + key.count].elementsEqual(key) else { continue }
                var i = start + key.count
                while i < bytes.count, isSpace(bytes[i]) { i += 1 }
                guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { continue }
                i += 1
                while i < bytes.count, isSpace(bytes[i]) { i += 1 }
                guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { return nil }
                let id = bytes[(i + 1)...].prefix { $0 != UInt8(ascii: "\"") }
                guard (1...64).contains(id.count), i + 1 + id.count < bytes.count, id.allSatisfy(RoomState.isIDByte) else { return nil }
                return String(decoding: id, as: UTF8.self)
            }
            return nil
        }
    }

    struct Welcome: Encodable {
        struct You: Encodable { var id: String?; var name: String; var role: String?; var mayDraw: Bool }
        var type = "welcome"
        var room: RoomJSON
        var you: You
        var sequence: UInt64
        var snapshot: RoomStateJSON?
        /// The binary frame that follows (`snapshot=deflated`): the compact snapshot at `sequence`,
        /// raw DEFLATE of `textBytes` bytes of JSON; the operations after it up to the welcome's
        /// sequence come next.
        var snapshotFrame: SnapshotFrame?

        struct SnapshotFrame: Encodable {
            var format = CompactSnapshot.format
            var encoding = "deflate-raw"
            var sequence: UInt64
            var bytes: Int
            var textBytes: Int
        }

        func encode(to encoder: any Encoder) throws {
            enum K: String, CodingKey { case type, room, you, sequence, snapshot, snapshotFrame }
            var c = encoder.container(keyedBy: K.self)
            try c.encode(type, forKey: .type); try c.encode(room, forKey: .room); try c.encode(you, forKey: .you)
            try c.encode(sequence, forKey: .sequence); try c.encode(snapshot, forKey: .snapshot)  // null, not absent
            try c.encodeIfPresent(snapshotFrame, forKey: .snapshotFrame)
        }
    }

    /// The room's settings changed (here or on another server): `room` and `you` as in `welcome`.
    struct SettingsMessage: Encodable {
        var type = "room-settings"
        var room: RoomJSON
        var you: Welcome.You
    }

    struct OpMessage: Encodable {
        var type = "op"
        var sequence: UInt64
        var author: String
        var clientOpID: String
        var operation: RoomOperation
        init(_ op: LoggedOperation) { sequence = op.sequence; author = op.author; clientOpID = op.clientOpID; operation = op.operation }
    }

    struct ErrorMessage: Encodable {
        var type = "error"
        var code: String
        var message: String
        var clientOpID: String?
    }
}
