import Foundation
import Rooms

/// Tells the live connections of a room on this server that its settings changed (its name, who
/// may draw, its members, its place), whether the change was made here or on another server
/// (`RoomHost.settingsChanges`). The room as everyone sees it is looked up once per change; each
/// connection adds its own part (role, whether it may draw).
public actor RoomSettingsFeed {
    public struct Change: Sendable {
        public var settings: RoomSettings
        /// The room as someone with no part in it sees it; a connection sets its own role.
        public var room: RoomJSON
    }

    public let summaries: RoomSummaries
    private var listeners: [String: [String: AsyncStream<Change>.Continuation]] = [:]

    public init(summaries: RoomSummaries) { self.summaries = summaries }

    /// The changes of the room's settings from now on, for one connection, until `stop`. Only the
    /// latest waits: older settings are of no use once newer ones are known.
    public func listen(_ room: String, connection: String) -> AsyncStream<Change> {
        let (stream, input) = AsyncStream<Change>.makeStream(bufferingPolicy: .bufferingNewest(1))
        listeners[room, default: [:]][connection] = input
        return stream
    }

    public func stop(_ room: String, connection: String) {
        listeners[room]?.removeValue(forKey: connection)?.finish()
        if listeners[room]?.isEmpty == true { listeners[room] = nil }
    }

    /// Passes on every change the host reports, for as long as the server runs.
    public func run(_ changes: AsyncStream<RoomSettings>) async {
        for await settings in changes where listeners[settings.id] != nil {
            let room = await summaries.summary(settings, for: nil)
            for input in (listeners[settings.id] ?? [:]).values { input.yield(Change(settings: settings, room: room)) }
        }
    }
}
