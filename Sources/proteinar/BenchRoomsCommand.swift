import ArgumentParser
import Foundation
import RoomLoad

/// The rooms' load generator, driven by scripts/benchmarks/benchmark-rooms.py: reads the plan
/// (rooms, clients, rate) from a JSON file, connects every client, prints `ready SECONDS`, waits
/// for a line on standard input (`go DELAY`: start in DELAY seconds), then prints `done JSON`
/// with what it measured.
struct BenchRoomsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench-rooms", abstract: "Load live rooms with WebSocket clients drawing at pen rate (driven by benchmark-rooms.py).",
        shouldDisplay: false)

    @Option(help: "The plan: a JSON file (see RoomLoadPlan).") var plan: String

    func run() async throws {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: plan)) } catch {
            throw ValidationError("cannot read the plan \(plan): \(error.localizedDescription)")
        }
        let decoded: RoomLoadPlan
        do { decoded = try JSONDecoder().decode(RoomLoadPlan.self, from: data) } catch {
            throw ValidationError("the plan \(plan) is not a RoomLoadPlan: \(error)")
        }
        let result = try await RoomLoadGenerator(plan: decoded).run(
            connected: { seconds in Self.say("ready \(seconds)") },
            start: {
                // The driver answers once every process is ready; a blocking read, off the
                // cooperative threads the clients run on.
                await withCheckedContinuation { (done: CheckedContinuation<Double, Never>) in
                    Thread {
                        let line = readLine() ?? ""
                        done.resume(returning: Double(line.split(separator: " ").last ?? "") ?? 0.5)
                    }.start()
                }
            })
        let json = try JSONEncoder().encode(result)
        Self.say("done " + String(decoding: json, as: UTF8.self))
    }

    static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
