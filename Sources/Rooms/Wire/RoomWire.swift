import Foundation

/// The rooms wire codec: every form a room's state and operations take outside a process, in one
/// place, each checked against golden files (Tests/Fixtures/rooms-wire) that the Swift, JavaScript
/// (Web/js/compact-snapshot.js) and Python (scripts/proteinar_testing/compact_snapshot.py) tests
/// all read.
///
/// | form | written by | read by |
/// | --- | --- | --- |
/// | a stored operation | `LoggedOperation.storedJSON` (fast path for pen strokes, else `encoder`) | the room log, `RoomStore` |
/// | a stored snapshot | `RoomState.snapshotJSON` (fast path; Codable form) | `RoomStore` loading a room |
/// | a client snapshot | `RoomStateJSON` through `encoder` | the web app, the API |
/// | a compact snapshot | `CompactSnapshot.text` | compact-snapshot.js (late joiners) |
///
/// The live socket's messages (`welcome`, `op`, `ack`, `error`, …) wrap these and are written by
/// the server (docs/rooms-protocol.md) with the same `encoder`.
public enum RoomWire {
    /// The one JSON encoder of rooms and of the API: sorted keys, slashes as they are, ISO 8601 dates.
    public static let encoder: JSONEncoder = {
        let e = JSONEncoder()
        e.dateEncodingStrategy = .iso8601
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return e
    }()
}
