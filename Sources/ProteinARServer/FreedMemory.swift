#if canImport(Glibc)
import Glibc
#endif
import NIOConcurrencyHelpers

/// Gives memory that the server has freed back to the system.
///
/// glibc's allocator keeps what many threads free in per-thread arenas and hands little of it back:
/// after 2,000 watchers leave a room the process would stay 100 MB larger although nothing holds
/// that memory. `malloc_trim` returns the free pages of every arena. It is looked up at run time
/// (Swift's Glibc module does not declare it), so other C libraries and Apple platforms, which
/// return memory themselves, simply skip it.
enum FreedMemory {
    private typealias Trim = @convention(c) (Int) -> Int32

    private static let pending = NIOLockedValueBox(false)

    /// `giveBack` a second from now, off the caller's thread (once the rooms and tasks that held
    /// the memory have let go too), once for however many ask meanwhile: a crowd of connections
    /// leaving (`ConnectionCounter`), rooms leaving memory together.
    static func giveBackSoon() {
        guard pending.withLockedValue({ p in defer { p = true }; return !p }) else { return }
        Task.detached(priority: .background) {
            try? await Task.sleep(for: .seconds(1))
            pending.withLockedValue { $0 = false }
            giveBack()
        }
    }

    private static func giveBack() {
        #if canImport(Glibc)
        // A null handle is RTLD_DEFAULT: the symbol as the process already links it.
        guard let symbol = dlsym(nil, "malloc_trim") else { return }
        _ = unsafeBitCast(symbol, to: Trim.self)(0)
        #endif
    }
}
