import RoomHost
import ServiceLifecycle

/// What servers on one store tell each other about rooms, for as long as the server runs: the
/// operations they store (PostgreSQL's NOTIFY, passed on to the rooms held here), changes of a
/// room's settings, and who is in each room (presence). A service of the application, so it
/// starts and stops with it. Settings changed here are told to this server's connections on any
/// store; with a store that only one server uses (SQLite) nothing else runs.
public struct RoomRelay: Service {
    public let host: RoomHost
    public let presence: RoomPresence
    public let settings: RoomSettingsFeed

    public init(host: RoomHost, presence: RoomPresence, settings: RoomSettingsFeed) {
        self.host = host; self.presence = presence; self.settings = settings
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await host.watchOtherServers() }
                group.addTask { await settings.run(host.settingsChanges) }
                if host.sharedByServers {
                    group.addTask { await listen() }
                    if let notices = presence.notices { group.addTask { await send(notices) } }
                    group.addTask { await beat() }
                }
            }
        }
        // A service that ends would stop the application, so this one waits for the server to stop.
        try? await gracefulShutdown()
    }

    /// Other servers' notices of settings and presence, listening again after a failure (a
    /// heartbeat later, everything missed is told again).
    private func listen() async {
        while !Task.isCancelled {
            try? await host.watchNotices(on: [RoomHost.settingsChannel, RoomPresence.channel]) { channel, payload in
                if channel == RoomPresence.channel { await presence.receive(payload) } else { await host.settingsNotice(payload) }
            }
            try? await Task.sleep(for: .seconds(1))
        }
    }

    /// This server's presence notices, in order; one that fails is lost (the heartbeat repeats it).
    private func send(_ notices: AsyncStream<String>) async {
        for await payload in notices { try? await host.notifyOtherServers(channel: RoomPresence.channel, payload: payload) }
    }

    private func beat() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: RoomPresence.heartbeat)
            await presence.tick()
        }
    }
}
