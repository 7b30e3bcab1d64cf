import Library
import NIOConcurrencyHelpers
import NIOCore

/// The most recently served models, in memory, as ready-to-send buffers: a cached model is sent
/// without a database read or a copy (buffers are shared, not duplicated, per response). Least
/// recently used entries go first beyond `limitBytes`.
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
    }

    public let limitBytes: Int
    private let state = NIOLockedValueBox(State())

    public init(limitBytes: Int) { self.limitBytes = limitBytes }

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
        let buffer = ByteBuffer(bytes: model.bytes)
        let entry = Entry(key: model.key, buffer: buffer, mediaType: model.mediaType, lastUse: 0)
        guard buffer.readableBytes <= limitBytes / 4 else { return entry }
        state.withLockedValue { s in
            s.clock += 1
            if let old = s.entries[model.key] { s.bytes -= old.buffer.readableBytes }
            var kept = entry
            kept.lastUse = s.clock
            s.entries[model.key] = kept
            s.bytes += buffer.readableBytes
            while s.bytes > limitBytes, let oldest = s.entries.min(by: { $0.value.lastUse < $1.value.lastUse }) {
                s.bytes -= oldest.value.buffer.readableBytes
                s.entries[oldest.key] = nil
            }
        }
        return entry
    }

    public var totalBytes: Int { state.withLockedValue { $0.bytes } }
}
