import Foundation
import NIOConcurrencyHelpers
import PDBArchive

/// Searches of the RCSB kept for a short while, and shared while under way: a class typing the
/// same words asks the archive once, and a flood of searches cannot make this server a proxy that
/// multiplies its requests to the archive (each search is two: the Search API and the Data API).
public final class SearchCache: Sendable {
    /// How long an answer is reused (the archive changes weekly; a minute keeps results fresh).
    public let lifetime: TimeInterval
    public let capacity: Int
    private let answers = NIOLockedValueBox([String: (results: SearchResults, at: Date)]())
    private let underWay = SharedWork<SearchResults>()

    public init(lifetime: TimeInterval = 60, capacity: Int = 512) {
        self.lifetime = lifetime; self.capacity = max(capacity, 1)
    }

    /// The kept answer for the words and page, else the archive's (once however many ask; only
    /// the caller that asks the archive passes `admission`).
    public func search(_ text: String, start: Int, rows: Int, archive: ArchiveClient,
                       admission: some Admission = AdmitAll()) async throws -> SearchResults {
        let words = text.lowercased().split(whereSeparator: \.isWhitespace).joined(separator: " ")
        let key = "\(words)|\(start)|\(rows)"
        if let kept = answer(key) { return kept }
        return try await underWay.run(key, admission: admission, progress: nil) { [self] _ in
            if let kept = answer(key) { return kept }
            let results = try await archive.search(text, start: start, rows: rows)
            keep(results, key)
            return results
        }
    }

    private func answer(_ key: String) -> SearchResults? {
        answers.withLockedValue { a in
            guard let kept = a[key], Date().timeIntervalSince(kept.at) < lifetime else { return nil }
            return kept.results
        }
    }

    private func keep(_ results: SearchResults, _ key: String) {
        answers.withLockedValue { a in
            let now = Date()
            if a.count >= capacity { a = a.filter { now.timeIntervalSince($0.value.at) < lifetime } }
            if a.count >= capacity, let oldest = a.min(by: { $0.value.at < $1.value.at })?.key { a[oldest] = nil }
            a[key] = (results, now)
        }
    }
}
