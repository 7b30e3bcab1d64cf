import RoomHost
import ServiceLifecycle

/// Passes operations that other servers store (PostgreSQL's NOTIFY) on to the rooms held here,
/// for as long as the server runs: a service of the application, so it starts and stops with it.
struct RoomRelay: Service {
    let host: RoomHost

    func run() async throws {
        await cancelWhenGracefulShutdown { await host.watchOtherServers() }
        // A store with nothing to tell (SQLite) returns at once; a service that ends would stop
        // the application, so this one waits for the server to stop.
        try? await gracefulShutdown()
    }
}
