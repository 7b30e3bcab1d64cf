import MoleculeLibrary

/// What reading a room's past may cost (issue 29, finding 5). A public room's log may be hundreds of
/// megabytes while its state is a few bytes (a stroke added and removed ten thousand times), and
/// anyone may read it:
/// - a page of `GET …/operations` is at most `pageBytes`, sent as the log stores it (nothing
///   decoded or encoded again), and its bytes are spent from a budget per client and per address;
/// - past states (`GET …/state?at=N`) replay the log: besides the client's fair share, they are
///   rebuilt `replays.width` at a time in the whole server, so they never hold every thread.
struct RoomLogReads: Sendable {
    /// Most bytes of operations in one page (always at least one operation).
    static let pageBytes = 1 << 20
    /// Kilobytes of log one client may read a minute (32 MiB), and all clients of one address
    /// (128 MiB): a reconnecting page reads a few kilobytes.
    let budget = MinuteBudget(what: "kilobytes of room logs", perClient: 32 << 10, perAddress: 128 << 10)
    /// Past states being rebuilt at once, in all; 64 more wait, beyond that `503`.
    let replays = WorkLimiter(width: 1, maxWaiting: 64, what: "past states of rooms")
}
