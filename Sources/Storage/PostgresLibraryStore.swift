import Foundation
import Logging
import NIOSSL
import PostgresNIO

/// The library in PostgreSQL, so that several servers share one library: the same tables as
/// `SQLiteLibraryStore` (bytea for blobs, double precision for times).
public final class PostgresLibraryStore: LibraryStore {
    let client: PostgresClient
    private let runTask: Task<Void, Never>
    let logger: Logger
    public let location: String
    public let cacheLimitBytes: Int

    /// - Parameter url: `postgres://user:password@host:port/database` (`postgresql://` too).
    public init(url: String, cacheLimitBytes: Int = 512 << 20, logger: Logger = Logger(label: "library.postgres")) throws {
        guard let c = URLComponents(string: url), c.scheme == "postgres" || c.scheme == "postgresql",
              let host = c.host, !host.isEmpty else {
            throw LibraryStoreError("--database-url '\(url)': expected postgres://user:password@host:port/database")
        }
        let database = String(c.path.drop { $0 == "/" })
        let configuration = PostgresClient.Configuration(
            host: host, port: c.port ?? 5432, username: c.user ?? "postgres", password: c.password,
            database: database.isEmpty ? nil : database, tls: try Self.tls(c.queryItems?.first { $0.name == "sslmode" }?.value))
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.client = client
        self.logger = logger
        runTask = Task { await client.run() }
        location = "postgres://\(host):\(c.port ?? 5432)/\(database)"
        self.cacheLimitBytes = cacheLimitBytes
    }

    /// `?sslmode=` as libpq reads it: `disable` (the default here, for a database on the same
    /// machine), `prefer`, `require` (encrypted, certificate not checked), `verify-full` (encrypted,
    /// certificate and host name checked against the system's trust roots).
    static func tls(_ mode: String?) throws -> PostgresClient.Configuration.TLS {
        switch mode ?? "disable" {
        case "disable": return .disable
        case "prefer", "allow":
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.certificateVerification = .none
            return .prefer(tls)
        case "require":
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.certificateVerification = .none
            return .require(tls)
        case "verify-ca", "verify-full":
            return .require(TLSConfiguration.makeClientConfiguration())
        default:
            throw LibraryStoreError("sslmode '\(mode ?? "")': accepted: disable, prefer, require, verify-full")
        }
    }

    public func migrate() async throws {
        // One server migrates at a time: the advisory lock serialises servers starting together.
        try await client.withTransaction(logger: logger) { db in
            try await db.query("SELECT pg_advisory_xact_lock(784512)", logger: logger)
            for statement in [
                "CREATE TABLE IF NOT EXISTS files (hash TEXT PRIMARY KEY, gzip BYTEA NOT NULL)",
                """
                CREATE TABLE IF NOT EXISTS molecules (
                    id TEXT PRIMARY KEY, source TEXT NOT NULL, title TEXT NOT NULL, description TEXT, method TEXT,
                    resolution DOUBLE PRECISION, organism TEXT, atoms BIGINT NOT NULL, residues BIGINT NOT NULL,
                    chains BIGINT NOT NULL, format TEXT NOT NULL, file_hash TEXT NOT NULL REFERENCES files(hash),
                    file_size BIGINT NOT NULL, summary TEXT NOT NULL, added_at DOUBLE PRECISION NOT NULL,
                    last_viewed_at DOUBLE PRECISION)
                """,
                "CREATE INDEX IF NOT EXISTS molecules_file ON molecules(file_hash)",
                """
                CREATE TABLE IF NOT EXISTS model_cache (
                    key TEXT PRIMARY KEY, molecule_id TEXT NOT NULL REFERENCES molecules(id) ON DELETE CASCADE,
                    media_type TEXT NOT NULL, bytes BYTEA NOT NULL, size BIGINT NOT NULL,
                    last_used DOUBLE PRECISION NOT NULL)
                """,
                "CREATE INDEX IF NOT EXISTS model_cache_lru ON model_cache(last_used)",
                "CREATE INDEX IF NOT EXISTS model_cache_molecule ON model_cache(molecule_id)",
                "CREATE TABLE IF NOT EXISTS rooms (id TEXT PRIMARY KEY, settings TEXT NOT NULL, created_at DOUBLE PRECISION NOT NULL)",
                """
                CREATE TABLE IF NOT EXISTS room_operations (
                    room_id TEXT NOT NULL REFERENCES rooms(id) ON DELETE CASCADE, sequence BIGINT NOT NULL,
                    operation TEXT NOT NULL, PRIMARY KEY (room_id, sequence))
                """,
                """
                CREATE TABLE IF NOT EXISTS room_snapshots (
                    room_id TEXT PRIMARY KEY REFERENCES rooms(id) ON DELETE CASCADE, sequence BIGINT NOT NULL,
                    snapshot TEXT NOT NULL)
                """,
                """
                CREATE TABLE IF NOT EXISTS room_history_bases (
                    room_id TEXT PRIMARY KEY REFERENCES rooms(id) ON DELETE CASCADE, sequence BIGINT NOT NULL,
                    snapshot TEXT NOT NULL)
                """,
                """
                CREATE TABLE IF NOT EXISTS accounts (id TEXT PRIMARY KEY, email TEXT NOT NULL UNIQUE, name TEXT NOT NULL,
                    password_hash TEXT NOT NULL, created_at DOUBLE PRECISION NOT NULL)
                """,
                """
                CREATE TABLE IF NOT EXISTS sessions (token_hash TEXT PRIMARY KEY,
                    account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE, csrf TEXT NOT NULL,
                    expires_at DOUBLE PRECISION NOT NULL)
                """,
                // Owners, administrators and each account's own list (see the SQLite store's v4).
                "ALTER TABLE molecules ADD COLUMN IF NOT EXISTS owner_id TEXT",
                "CREATE INDEX IF NOT EXISTS molecules_owner ON molecules(owner_id)",
                """
                DO $$ BEGIN
                    IF NOT EXISTS (SELECT 1 FROM information_schema.columns WHERE table_name = 'accounts' AND column_name = 'is_admin') THEN
                        ALTER TABLE accounts ADD COLUMN is_admin BOOLEAN NOT NULL DEFAULT FALSE;
                        UPDATE accounts SET is_admin = TRUE WHERE id = (SELECT id FROM accounts ORDER BY created_at, id LIMIT 1);
                    END IF;
                END $$
                """,
                """
                CREATE TABLE IF NOT EXISTS kept_molecules (
                    account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE, molecule_id TEXT NOT NULL,
                    kept_at DOUBLE PRECISION NOT NULL, PRIMARY KEY (account_id, molecule_id))
                """,
                // The archive cache (see the SQLite store's v6).
                "ALTER TABLE molecules ADD COLUMN IF NOT EXISTS in_library BOOLEAN NOT NULL DEFAULT TRUE",
                "ALTER TABLE molecules ADD COLUMN IF NOT EXISTS checked_at DOUBLE PRECISION",
                "CREATE INDEX IF NOT EXISTS molecules_archive_cache ON molecules(in_library, last_viewed_at)",
                // Room invitations (see the SQLite store's v7).
                """
                CREATE TABLE IF NOT EXISTS room_invitations (
                    room_id TEXT NOT NULL REFERENCES rooms(id) ON DELETE CASCADE, email TEXT NOT NULL,
                    invited_by TEXT NOT NULL, invited_at DOUBLE PRECISION NOT NULL, PRIMARY KEY (room_id, email))
                """,
                "CREATE INDEX IF NOT EXISTS room_invitations_email ON room_invitations(email)",
                // Lessons and their answers (see the SQLite store's v8).
                """
                CREATE TABLE IF NOT EXISTS lessons (
                    id TEXT PRIMARY KEY, owner_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
                    title TEXT NOT NULL, steps TEXT NOT NULL, step_count INTEGER NOT NULL,
                    created_at DOUBLE PRECISION NOT NULL, updated_at DOUBLE PRECISION NOT NULL)
                """,
                "CREATE INDEX IF NOT EXISTS lessons_owner ON lessons(owner_id, updated_at)",
                """
                CREATE TABLE IF NOT EXISTS lesson_answers (
                    lesson_id TEXT NOT NULL REFERENCES lessons(id) ON DELETE CASCADE, step_id TEXT NOT NULL,
                    answerer TEXT NOT NULL, name TEXT, choice INTEGER NOT NULL, answered_at DOUBLE PRECISION NOT NULL,
                    PRIMARY KEY (lesson_id, step_id, answerer))
                """,
            ] {
                try await db.query(PostgresQuery(unsafeSQL: statement), logger: logger)
            }
        }
    }

    private static let columns = """
        id, source, title, description, method, resolution, organism, atoms, residues, chains, format, \
        file_hash, file_size, summary, added_at, last_viewed_at, owner_id, in_library, checked_at
        """

    public func molecules(_ query: MoleculeQuery) async throws -> MoleculePage {
        var binds = PostgresBindings()
        var conditions: [String] = []
        if let text = query.text?.trimmingCharacters(in: .whitespaces), !text.isEmpty {
            for word in text.split(separator: " ") {
                binds.append("%" + LibrarySQL.escapeLike(String(word)) + "%")
                let n = binds.count
                conditions.append("(id ILIKE $\(n) OR title ILIKE $\(n) OR organism ILIKE $\(n) OR description ILIKE $\(n))")
            }
        }
        if let source = query.source {
            binds.append(source.rawValue)
            conditions.append("source = $\(binds.count)")
        }
        if let account = query.keptBy {
            binds.append(account)
            conditions.append("id IN (SELECT molecule_id FROM kept_molecules WHERE account_id = $\(binds.count))")
        }
        if let inLibrary = query.inLibrary {
            binds.append(inLibrary)
            conditions.append("in_library = $\(binds.count)")
        }
        let filter = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        var total = 0
        for try await count in try await client.query(PostgresQuery(unsafeSQL: "SELECT COUNT(*) FROM molecules" + filter, binds: binds),
                                                      logger: logger).decode(Int.self) {
            total = count
        }
        var pageBinds = binds
        pageBinds.append(query.limit)
        pageBinds.append(query.offset)
        let sql = "SELECT \(Self.columns) FROM molecules\(filter) ORDER BY \(LibrarySQL.orderBy(query.order)) "
            + "LIMIT $\(pageBinds.count - 1) OFFSET $\(pageBinds.count)"
        let rows = try await client.query(PostgresQuery(unsafeSQL: sql, binds: pageBinds), logger: logger)
        var out: [MoleculeRecord] = []
        for try await row in rows { out.append(try Self.record(row)) }
        return MoleculePage(total: total, molecules: out)
    }

    public func molecule(id: String) async throws -> MoleculeRecord? {
        let rows = try await client.query(PostgresQuery(unsafeSQL: "SELECT \(Self.columns) FROM molecules WHERE id = $1", binds: Self.binds(id)),
                                          logger: logger)
        for try await row in rows { return try Self.record(row) }
        return nil
    }

    public func add(_ r: MoleculeRecord, compressedFile: [UInt8]) async throws {
        let logger = logger
        try await client.withTransaction(logger: logger) { db in
            // Servers sharing the library may add the same id at once: one at a time per id.
            try await db.query("SELECT pg_advisory_xact_lock(hashtext(\(r.id)))", logger: logger)
            try await db.query("INSERT INTO files (hash, gzip) VALUES (\(r.fileHash), \(Data(compressedFile))) ON CONFLICT (hash) DO NOTHING",
                               logger: logger)
            var previous: String?
            for try await hash in try await db.query("SELECT file_hash FROM molecules WHERE id = \(r.id) FOR UPDATE", logger: logger).decode(String.self) {
                previous = hash
            }
            try await db.query("DELETE FROM molecules WHERE id = \(r.id)", logger: logger)
            try await db.query("""
                INSERT INTO molecules (id, source, title, description, method, resolution, organism, atoms, residues,
                    chains, format, file_hash, file_size, summary, added_at, last_viewed_at, owner_id, in_library, checked_at)
                VALUES (\(r.id), \(r.source.rawValue), \(r.title), \(r.description), \(r.method), \(r.resolution), \(r.organism),
                    \(r.atoms), \(r.residues), \(r.chains), \(r.format), \(r.fileHash), \(r.fileSize), \(r.summaryJSON),
                    \(r.addedAt.timeIntervalSince1970), \(r.lastViewedAt?.timeIntervalSince1970), \(r.ownerID),
                    \(r.inLibrary), \(r.checkedAt?.timeIntervalSince1970))
                """, logger: logger)
            if let previous, previous != r.fileHash { try await Self.dropFileIfUnused(db, hash: previous, logger: logger) }
        }
    }

    public func compressedFile(moleculeID: String) async throws -> [UInt8]? {
        let rows = try await client.query("SELECT f.gzip FROM files f JOIN molecules m ON m.file_hash = f.hash WHERE m.id = \(moleculeID)",
                                          logger: logger)
        for try await data in rows.decode(Data.self) { return [UInt8](data) }
        return nil
    }

    public func remove(id: String) async throws -> Bool {
        let logger = logger
        return try await client.withTransaction(logger: logger) { db in
            var hash: String?
            for try await h in try await db.query("DELETE FROM molecules WHERE id = \(id) RETURNING file_hash", logger: logger).decode(String.self) {
                hash = h
            }
            guard let hash else { return false }
            try await db.query("DELETE FROM kept_molecules WHERE molecule_id = \(id)", logger: logger)
            try await Self.dropFileIfUnused(db, hash: hash, logger: logger)
            return true
        }
    }

    public func touch(id: String) async throws {
        try await client.query("UPDATE molecules SET last_viewed_at = \(Date().timeIntervalSince1970) WHERE id = \(id)", logger: logger)
    }

    public func count() async throws -> Int {
        for try await n in try await client.query("SELECT COUNT(*) FROM molecules WHERE in_library", logger: logger).decode(Int.self) { return n }
        return 0
    }

    public func moveIntoLibrary(id: String) async throws -> Bool {
        let rows = try await client.query("UPDATE molecules SET in_library = TRUE WHERE id = \(id) RETURNING id", logger: logger)
        for try await _ in rows.decode(String.self) { return true }
        return false
    }

    public func markChecked(id: String, at date: Date) async throws {
        try await client.query("UPDATE molecules SET checked_at = \(date.timeIntervalSince1970) WHERE id = \(id)", logger: logger)
    }

    public func archiveCacheSize() async throws -> ArchiveCacheSize {
        let rows = try await client.query("SELECT COUNT(*)::BIGINT, COALESCE(SUM(file_size), 0)::BIGINT FROM molecules WHERE NOT in_library",
                                          logger: logger)
        for try await (n, bytes) in rows.decode((Int, Int).self) { return ArchiveCacheSize(entries: n, bytes: bytes) }
        return ArchiveCacheSize(entries: 0, bytes: 0)
    }

    public func evictArchiveCache(limitBytes: Int) async throws -> [String] {
        let logger = logger
        return try await client.withTransaction(logger: logger) { db in
            // Least recently viewed first out, beyond the bound (a running total in the database).
            var removed: [(String, String)] = []
            for try await pair in try await db.query("""
                DELETE FROM molecules WHERE id IN (
                    SELECT id FROM (SELECT id, SUM(file_size) OVER (ORDER BY COALESCE(last_viewed_at, added_at) DESC, id) AS kept
                                    FROM molecules WHERE NOT in_library) t
                    WHERE kept > \(limitBytes))
                RETURNING id, file_hash
                """, logger: logger).decode((String, String).self) {
                removed.append(pair)
            }
            for (id, hash) in removed {
                try await db.query("DELETE FROM kept_molecules WHERE molecule_id = \(id)", logger: logger)
                try await Self.dropFileIfUnused(db, hash: hash, logger: logger)
            }
            return removed.map(\.0)
        }
    }

    public func keep(moleculeID: String, accountID: String) async throws {
        try await client.query("""
            INSERT INTO kept_molecules (account_id, molecule_id, kept_at) VALUES (\(accountID), \(moleculeID), \(Date().timeIntervalSince1970))
            ON CONFLICT DO NOTHING
            """, logger: logger)
    }

    public func unkeep(moleculeID: String, accountID: String) async throws -> Bool {
        let rows = try await client.query(
            "DELETE FROM kept_molecules WHERE account_id = \(accountID) AND molecule_id = \(moleculeID) RETURNING molecule_id", logger: logger)
        for try await _ in rows.decode(String.self) { return true }
        return false
    }

    public func storedBytes(ownerID: String?) async throws -> Int {
        let rows: PostgresRowSequence
        if let ownerID {
            rows = try await client.query("SELECT COALESCE(SUM(file_size), 0)::BIGINT FROM molecules WHERE owner_id = \(ownerID)", logger: logger)
        } else {
            rows = try await client.query("SELECT COALESCE(SUM(file_size), 0)::BIGINT FROM molecules", logger: logger)
        }
        for try await n in rows.decode(Int.self) { return n }
        return 0
    }

    public func cachedModel(key: String) async throws -> CachedModel? {
        let rows = try await client.query("""
            UPDATE model_cache SET last_used = \(Date().timeIntervalSince1970) WHERE key = \(key)
            RETURNING key, molecule_id, media_type, bytes
            """, logger: logger)
        for try await (k, molecule, type, bytes) in rows.decode((String, String, String, Data).self) {
            return CachedModel(key: k, moleculeID: molecule, mediaType: type, bytes: [UInt8](bytes))
        }
        return nil
    }

    public func cacheModel(_ m: CachedModel) async throws {
        let logger = logger, limit = cacheLimitBytes
        try await client.withTransaction(logger: logger) { db in
            try await db.query("""
                INSERT INTO model_cache (key, molecule_id, media_type, bytes, size, last_used)
                SELECT \(m.key), \(m.moleculeID), \(m.mediaType), \(Data(m.bytes)), \(m.bytes.count), \(Date().timeIntervalSince1970)
                WHERE EXISTS (SELECT 1 FROM molecules WHERE id = \(m.moleculeID))
                ON CONFLICT (key) DO UPDATE SET bytes = excluded.bytes, size = excluded.size, last_used = excluded.last_used
                """, logger: logger)
            // Least recently used first out, beyond the cap (a running total in the database).
            try await db.query("""
                DELETE FROM model_cache WHERE key IN (
                    SELECT key FROM (SELECT key, SUM(size) OVER (ORDER BY last_used DESC, key) AS kept FROM model_cache) t
                    WHERE kept > \(limit))
                """, logger: logger)
        }
    }

    public func cacheSize() async throws -> Int {
        for try await n in try await client.query("SELECT COALESCE(SUM(size), 0)::BIGINT FROM model_cache", logger: logger).decode(Int.self) {
            return n
        }
        return 0
    }

    public func close() async throws { runTask.cancel() }

    private static func binds(_ values: String...) -> PostgresBindings {
        var b = PostgresBindings()
        for v in values { b.append(v) }
        return b
    }

    private static func dropFileIfUnused(_ db: PostgresConnection, hash: String, logger: Logger) async throws {
        try await db.query("DELETE FROM files WHERE hash = \(hash) AND NOT EXISTS (SELECT 1 FROM molecules WHERE file_hash = \(hash))",
                           logger: logger)
    }

    private static func record(_ row: PostgresRow) throws -> MoleculeRecord {
        let all = try row.decode((String, String, String, String?, String?, Double?, String?, Int, Int, Int, String, String, Int, String, Double, Double?,
                                  String?, Bool, Double?).self)
        guard let source = MoleculeSource(rawValue: all.1) else {
            throw LibraryStoreError("molecule \(all.0): unknown source '\(all.1.prefix(40))' in the database")
        }
        return MoleculeRecord(id: all.0, source: source, title: all.2, description: all.3, method: all.4, resolution: all.5,
                              organism: all.6, atoms: all.7, residues: all.8, chains: all.9, format: all.10, fileHash: all.11,
                              fileSize: all.12, summaryJSON: all.13, addedAt: Date(timeIntervalSince1970: all.14),
                              lastViewedAt: all.15.map(Date.init(timeIntervalSince1970:)), ownerID: all.16,
                              inLibrary: all.17, checkedAt: all.18.map(Date.init(timeIntervalSince1970:)))
    }
}
