import Hummingbird
import TestSupport

/// Starting a Hummingbird application for a test: on a free loopback port, running until its task
/// is cancelled.
public enum LoopbackServer {
    /// Builds the application with `make` (given what to call with the port once it listens), runs
    /// it, and returns the port and the running task. Fails, rather than waits for ever, when the
    /// application stops or does not listen within a minute.
    public static func start<App: ApplicationProtocol>(_ what: String,
                                                      _ make: (@escaping @Sendable (Int) -> Void) throws -> App) async throws -> (Int, Task<Void, any Error>) {
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let app = try make { port in continuation.yield(port) }
        let task = Task {
            defer { continuation.finish() }
            try await app.runService()
        }
        let port = try await within(.seconds(60), "\(what) to listen") { () -> Int? in
            for await port in ports { return port }
            return nil
        }
        guard let port, port > 0 else {
            task.cancel()
            let outcome = await task.result
            throw TestSetupError(description: "\(what) did not start: \(outcome)")
        }
        return (port, task)
    }
}
