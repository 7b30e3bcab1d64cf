import Foundation
import LiveRooms
@testable import ProteinARServer
import Rooms
import Testing

/// The live socket's messages (docs/rooms-protocol.md) against golden files beside the rooms wire
/// codec's (Tests/Fixtures/rooms-wire/message-*.json), which the web app's and the Python checks'
/// readers read too. They carry the codec's forms: the welcome's snapshot is the client snapshot's
/// golden file, the op message the first stored operation's. Rewrite them with
/// `PROTEINAR_WRITE_GOLDEN=1 swift test --filter LiveMessage` and say why in the commit.
@Suite("Live socket messages: golden files")
struct LiveMessageGoldenTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../Fixtures/rooms-wire").standardizedFileURL

    static func read(_ name: String) throws -> Data { try Data(contentsOf: folder.appendingPathComponent(name)) }

    static func check(_ name: String, _ value: some Encodable) throws {
        let text = String(decoding: try RoomWire.encoder.encode(value), as: UTF8.self)
        let url = folder.appendingPathComponent(name)
        if ProcessInfo.processInfo.environment["PROTEINAR_WRITE_GOLDEN"] == "1" { try Data((text + "\n").utf8).write(to: url) }
        #expect(text == String(decoding: try Data(contentsOf: url), as: UTF8.self).trimmingCharacters(in: .newlines), "\(name)")
    }

    static let settings = RoomSettings(id: "r0123456789abcdef", name: "Haemoglobin — “the pocket”", ownerID: "a1f00", isPublic: true, guestsMayDraw: true)
    static var room: RoomJSON {
        RoomJSON(settings, for: Participant(id: "a1f00"), names: ["a1f00": "Ada"], createdAt: Date(timeIntervalSince1970: 1_790_000_000))
    }

    @Test("welcome (with the plain snapshot, and with a deflated one announced), op, ack, error, settings")
    func messages() throws {
        let snapshot = try JSONDecoder().decode(RoomStateJSON.self, from: Self.read("client-snapshot.json"))
        let you = LiveConnection.Welcome.You(id: "a1f00", name: "Ada", role: "owner", mayDraw: true)
        try Self.check("message-welcome.json", LiveConnection.Welcome(room: Self.room, you: you, sequence: snapshot.sequence, snapshot: snapshot))
        try Self.check("message-welcome-deflated.json", LiveConnection.Welcome(
            room: Self.room, you: you, sequence: 9, snapshot: nil,
            snapshotFrame: .init(sequence: 7, bytes: 412, textBytes: 790)))
        let firstLine = String(decoding: try Self.read("stored-operations.jsonl"), as: UTF8.self).split(separator: "\n")[0]
        let logged = try JSONDecoder().decode(LoggedOperation.self, from: Data(firstLine.utf8))
        try Self.check("message-op.json", LiveConnection.OpMessage(logged))
        try Self.check("message-ack.json", Ack(.accepted(logged), clientOpID: logged.clientOpID))
        try Self.check("message-error.json", LiveConnection.ErrorMessage(code: "forbidden", message: "guests may not draw in this room", clientOpID: "c9"))
        let guest = LiveConnection.Welcome.You(id: "guest:g0123456789abcdef", name: "Guest 0123", role: "guest", mayDraw: true)
        try Self.check("message-room-settings.json", LiveConnection.SettingsMessage(room: Self.room, you: guest))
    }
}
