import Foundation

/// Drawing rooms as the library keeps them: settings, the numbered log of operations and the
/// latest snapshot, each as JSON that the rooms' own module defines (this layer only stores it).
/// An operation is durable once `appendOperations` returns: the server acknowledges and broadcasts
/// only after that.
public protocol RoomLogStore: Sendable {
    /// Creates the room; false (and nothing changed) when the id is taken, also by another server.
    func createRoom(id: String, settingsJSON: String) async throws -> Bool
    /// Creates the room or replaces its settings.
    func saveRoom(id: String, settingsJSON: String) async throws
    func room(id: String) async throws -> StoredRoom?
    func rooms() async throws -> [StoredRoom]
    /// Appends consecutive operations of one room under their sequence numbers, all or none: false
    /// (and nothing stored) when any of the numbers is taken already, as when another server
    /// appended first. A room's host stores what arrived while its last batch was being written
    /// as the next batch: one commit for several operations (group commit), in order.
    func appendOperations(_ operations: [StoredRoomOperation]) async throws -> Bool
    /// Operations with a sequence above `after`, in order, at most `limit`.
    func operations(roomID: String, after: Int64, limit: Int) async throws -> [StoredRoomOperation]
    /// Keeps the room's snapshot at `sequence`, replacing an older one; a long log then loads from it.
    func saveSnapshot(roomID: String, sequence: Int64, json: String) async throws
    func latestSnapshot(roomID: String) async throws -> (sequence: Int64, json: String)?
    /// Folds the log up to `sequence` into `baseJSON` (the room's state right after it), in one
    /// transaction: keeps it as the room's history base and deletes the operations up to it. The
    /// room's history (and a resume from the log) then starts at the base.
    func trimOperations(roomID: String, through sequence: Int64, baseJSON: String) async throws
    /// The room's history base: its state where the log now starts (nil: the log is whole).
    func historyBase(roomID: String) async throws -> (sequence: Int64, json: String)?
    /// The base's sequence alone (0: the log is whole).
    func historyBaseSequence(roomID: String) async throws -> Int64
    /// Calls `onAppend` with (room, sequence) for operations appended by any server, until the task
    /// is cancelled or the connection fails. A store that only one server uses returns at once.
    func watchAppends(_ onAppend: @escaping @Sendable (String, Int64) async -> Void) async throws
    /// Whether other servers may use this store at the same time (PostgreSQL), so that what one
    /// server knows only in memory (who is in a room) has to be told to the others with `notify`.
    var sharedByServers: Bool { get }
    /// Tells every server watching `channel` (`watchNotices`), this one included. `payload` is at
    /// most `RoomNotice.maximumPayloadBytes` of UTF-8; a store only one server uses drops it.
    func notify(channel: String, payload: String) async throws
    /// Calls `onNotice` with (channel, payload) for every notice sent on one of `channels` by any
    /// server, until the task is cancelled or the connection fails. A store that only one server
    /// uses returns at once.
    func watchNotices(on channels: [String], _ onNotice: @escaping @Sendable (String, String) async -> Void) async throws
}

/// Notices between servers (PostgreSQL's NOTIFY) carry at most this many bytes of payload.
public enum RoomNotice {
    /// PostgreSQL refuses payloads of 8,000 bytes or more; a margin below that.
    public static let maximumPayloadBytes = 7_900
}

extension RoomLogStore {
    /// Appends one operation; false (and nothing stored) when its number is taken already.
    public func appendOperation(_ operation: StoredRoomOperation) async throws -> Bool {
        try await appendOperations([operation])
    }
}

public struct StoredRoom: Sendable, Equatable {
    public var id: String
    public var settingsJSON: String
    public var createdAt: Date
    public init(id: String, settingsJSON: String, createdAt: Date) { self.id = id; self.settingsJSON = settingsJSON; self.createdAt = createdAt }
}

public struct StoredRoomOperation: Sendable, Equatable {
    public var roomID: String
    public var sequence: Int64
    public var json: String
    public init(roomID: String, sequence: Int64, json: String) { self.roomID = roomID; self.sequence = sequence; self.json = json }
}
