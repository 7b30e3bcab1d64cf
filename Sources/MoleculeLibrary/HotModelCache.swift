import NIOConcurrencyHelpers
import NIOCore
import Storage

/// The most recently served models, in memory, as ready-to-send buffers: a cached model is sent
/// without a database read or a copy (buffers are shared, not duplicated, per response). Least
/// recently used entries go first beyond `limitBytes` or `limitEntries`. The server's gzip of
/// answers with an ETag is kept in one too (an empty entry for a body not worth compressing).
public final class HotModelCache: Sendable {
    public struct Entry: Sendable {
        public var key: String
        public var buffer: ByteBuffer
        public var mediaType: String
        var lastUse: UInt64
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var bytes = 0
        var clock: UInt64 = 0
        /// The file hash of each library id whose model was served lately, and when it was read.
        var files: [String: (hash: String, read: NIODeadline)] = [:]
    }

    /// How long a library id's file hash is trusted without reading the store again: a molecule
    /// removed here is forgotten at once, one removed by another server on the same database
    /// stops being served from memory within this time.
    public static let fileTrust = TimeAmount.seconds(5)
    /// Most ids remembered (a fresh read replaces the oldest half beyond it).
    static let fileLimit = 4_096

    public let limitBytes: Int
    public let limitEntries: Int
    private let state = NIOLockedValueBox(State())

    public init(limitBytes: Int, limitEntries: Int = 10_000) { self.limitBytes = limitBytes; self.limitEntries = limitEntries }

    public func get(_ key: String) -> Entry? {
        state.withLockedValue { s in
            guard var e = s.entries[key] else { return nil }
            s.clock += 1
            e.lastUse = s.clock
            s.entries[key] = e
            return e
        }
    }

    /// Keeps `model` (unless it alone is over a quarter of the limit) and returns its buffer.
    @discardableResult
    public func put(_ model: CachedModel) -> Entry {
        put(key: model.key, buffer: ByteBuffer(bytes: model.bytes), mediaType: model.mediaType)
    }

    /// Keeps `buffer` under `key` (unless it alone is over a quarter of the limit).
    @discardableResult
    public func put(key: String, buffer: ByteBuffer, mediaType: String) -> Entry {
        let entry = Entry(key: key, buffer: buffer, mediaType: mediaType, lastUse: 0)
        guard buffer.readableBytes <= limitBytes / 4 else { return entry }
        state.withLockedValue { s in
            s.clock += 1
            if let old = s.entries[key] { s.bytes -= old.buffer.readableBytes }
            var kept = entry
            kept.lastUse = s.clock
            s.entries[key] = kept
            s.bytes += buffer.readableBytes
            while s.bytes > limitBytes || s.entries.count > limitEntries,
                  let oldest = s.entries.min(by: { $0.value.lastUse < $1.value.lastUse }) {
                s.bytes -= oldest.value.buffer.readableBytes
                s.entries[oldest.key] = nil
            }
        }
        return entry
    }

    public var totalBytes: Int { state.withLockedValue { $0.bytes } }

    /// Notes that library id `id` holds the file with hash `hash` (read from the store just now).
    public func remember(fileHash hash: String, of id: String) {
        let now = NIODeadline.now()
        state.withLockedValue { s in
            if s.files.count >= Self.fileLimit {
                s.files = s.files.filter { now - $0.value.read < Self.fileTrust }
                if s.files.count >= Self.fileLimit { s.files.removeAll() }
            }
            s.files[id] = (hash, now)
        }
    }

    /// The file hash of `id` when it was read less than `fileTrust` ago.
    public func recentFileHash(of id: String) -> String? {
        let now = NIODeadline.now()
        return state.withLockedValue { s in
            guard let f = s.files[id], now - f.read < Self.fileTrust else { return nil }
            return f.hash
        }
    }

    public func forgetFile(of id: String) { state.withLockedValue { _ = $0.files.removeValue(forKey: id) } }
}
