import Foundation
import PostgresNIO
import Storage

/// Which store a test runs on. PostgreSQL comes from `PROTEINAR_TEST_POSTGRES_URL` (scripts/test
/// starts a server from Debian's package and sets it); each test gets a database of its own.
public enum StoreKind: String, CaseIterable, Sendable, CustomStringConvertible {
    case sqlite, postgres
    public var description: String { rawValue }
}

/// A test could not set up what it needs (no PostgreSQL, a server that did not start).
public struct TestSetupError: Error, CustomStringConvertible {
    public let description: String
    public init(description: String) { self.description = description }
}

/// A folder of its own in the temporary directory, for a library's files or a server's data.
public struct ScratchDirectory: Sendable {
    public let path: String

    /// Names a fresh folder (`prefix` and a UUID); `create` makes it now, otherwise whoever uses it does.
    public init(_ prefix: String, create: Bool = true) throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)").path
        if create { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
    }

    /// A temporary SQLite file's path in the folder.
    public var sqliteFile: String { path + "/library.sqlite" }

    public func remove() { try? FileManager.default.removeItem(atPath: path) }
}

public enum TestStores {
    /// A library store of `kind` on a scratch SQLite file or a scratch PostgreSQL database, not yet
    /// migrated, and how to throw it away.
    public static func open(_ kind: StoreKind, cacheLimit: Int = 1 << 20) async throws -> (any LibraryStore, @Sendable () async -> Void) {
        switch kind {
        case .sqlite:
            let dir = try ScratchDirectory("proteinar-store")
            let store = try SQLiteLibraryStore(path: dir.sqliteFile, cacheLimitBytes: cacheLimit)
            return (store, { try? await store.close(); dir.remove() })
        case .postgres:
            let (url, drop) = try await PostgresScratch.create()
            let store = try PostgresLibraryStore(url: url, cacheLimitBytes: cacheLimit)
            return (store, { try? await store.close(); await drop() })
        }
    }
}

/// A throw-away PostgreSQL database per test, on the server `PROTEINAR_TEST_POSTGRES_URL` names.
public enum PostgresScratch {
    public static var adminURL: String {
        get throws {
            guard let admin = ProcessInfo.processInfo.environment["PROTEINAR_TEST_POSTGRES_URL"] else {
                throw TestSetupError(description: "PROTEINAR_TEST_POSTGRES_URL is not set: run scripts/test, which starts PostgreSQL, "
                                     + "or point it at a server (postgres://user@host:port/postgres)")
            }
            return admin
        }
    }

    /// A new database's URL and how to drop it.
    public static func create() async throws -> (String, @Sendable () async -> Void) {
        let admin = try adminURL
        let name = "proteinar_test_\(UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16).lowercased())"
        try await adminQuery(admin, "CREATE DATABASE \(name)")
        guard var c = URLComponents(string: admin) else { throw TestSetupError(description: "bad PROTEINAR_TEST_POSTGRES_URL") }
        c.path = "/" + name
        let url = c.string ?? admin
        return (url, { try? await adminQuery(admin, "DROP DATABASE IF EXISTS \(name) WITH (FORCE)") })
    }

    public static func adminQuery(_ url: String, _ sql: String) async throws {
        _ = try await integers(url, sql)
    }

    /// Runs `sql` on the database `url` names; the first column of each row, as whole numbers.
    public static func integers(_ url: String, _ sql: String) async throws -> [Int] {
        guard let c = URLComponents(string: url), let host = c.host else { throw TestSetupError(description: "bad postgres URL \(url)") }
        let configuration = PostgresClient.Configuration(host: host, port: c.port ?? 5432, username: c.user ?? "postgres",
                                                         password: c.password, database: String(c.path.dropFirst()), tls: .disable)
        let client = PostgresClient(configuration: configuration)
        return try await withThrowingTaskGroup(of: [Int].self) { group in
            group.addTask { await client.run(); return [] }
            defer { group.cancelAll() }
            var out: [Int] = []
            let rows = try await client.query(PostgresQuery(unsafeSQL: sql))
            for try await row in rows {
                let cells = row.makeRandomAccess()
                if cells.count > 0, let value = try? cells[0].decode(Int.self) { out.append(value) }
            }
            return out
        }
    }

    /// How many connections to the database `url` names have run `LISTEN "channel"` and are
    /// waiting (LISTEN done): a notification sent now reaches that many listeners.
    public static func listeners(on channel: String, database url: String) async throws -> Int {
        guard let database = URLComponents(string: url)?.path.dropFirst(), !database.isEmpty else {
            throw TestSetupError(description: "bad postgres URL \(url)")
        }
        let sql = """
            SELECT count(*)::bigint FROM pg_stat_activity WHERE datname = '\(database)' AND state = 'idle' \
            AND query = 'LISTEN "\(channel)";'
            """
        return try await integers(try adminURL, sql).first ?? 0
    }
}
