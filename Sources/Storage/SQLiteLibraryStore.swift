import Foundation
import GRDB

/// The embedded default: one SQLite file in write-ahead-log mode (readers never wait for the
/// writer), through GRDB's connection pool.
public final class SQLiteLibraryStore: LibraryStore {
    let pool: DatabasePool
    let appends: SQLiteAppendQueue
    public let location: String
    public let cacheLimitBytes: Int

    /// `syncEveryCommit`: sync the write-ahead log to disk at every commit (survives a power cut);
    /// otherwise at checkpoints (GRDB's default for WAL, which survives a killed server process,
    /// since committed transactions are in the operating system's hands).
    public init(path: String, cacheLimitBytes: Int = 512 << 20, syncEveryCommit: Bool = false) throws {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        // A second server process on the same file waits for the lock instead of failing at once.
        configuration.busyMode = .timeout(5)
        if syncEveryCommit {
            configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        }
        pool = try DatabasePool(path: path, configuration: configuration)
        appends = SQLiteAppendQueue(pool: pool)
        location = "sqlite:\(path)"
        self.cacheLimitBytes = cacheLimitBytes
    }

    public func migrate() async throws {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE files (
                    hash TEXT PRIMARY KEY,
                    gzip BLOB NOT NULL
                );
                CREATE TABLE molecules (
                    id TEXT PRIMARY KEY,
                    source TEXT NOT NULL,
                    title TEXT NOT NULL,
                    description TEXT,
                    method TEXT,
                    resolution REAL,
                    organism TEXT,
                    atoms INTEGER NOT NULL,
                    residues INTEGER NOT NULL,
                    chains INTEGER NOT NULL,
                    format TEXT NOT NULL,
                    file_hash TEXT NOT NULL REFERENCES files(hash),
                    file_size INTEGER NOT NULL,
                    summary TEXT NOT NULL,
                    added_at REAL NOT NULL,
                    last_viewed_at REAL
                );
                CREATE INDEX molecules_file ON molecules(file_hash);
                CREATE TABLE model_cache (
                    key TEXT PRIMARY KEY,
                    molecule_id TEXT NOT NULL REFERENCES molecules(id) ON DELETE CASCADE,
                    media_type TEXT NOT NULL,
                    bytes BLOB NOT NULL,
                    size INTEGER NOT NULL,
                    last_used REAL NOT NULL
                );
                CREATE INDEX model_cache_lru ON model_cache(last_used);
                CREATE INDEX model_cache_molecule ON model_cache(molecule_id);
                """)
        }
        let pool = self.pool
        migrator.registerMigration("v2-rooms") { db in
            try db.execute(sql: """
                CREATE TABLE rooms (id TEXT PRIMARY KEY, settings TEXT NOT NULL, created_at DOUBLE NOT NULL);
                CREATE TABLE room_operations (
                    room_id TEXT NOT NULL REFERENCES rooms(id) ON DELETE CASCADE,
                    sequence INTEGER NOT NULL,
                    operation TEXT NOT NULL,
                    PRIMARY KEY (room_id, sequence)
                );
                CREATE TABLE room_snapshots (
                    room_id TEXT PRIMARY KEY REFERENCES rooms(id) ON DELETE CASCADE,
                    sequence INTEGER NOT NULL,
                    snapshot TEXT NOT NULL
                );
                """)
        }
        migrator.registerMigration("v3-accounts") { db in
            try db.execute(sql: """
                CREATE TABLE accounts (id TEXT PRIMARY KEY, email TEXT NOT NULL UNIQUE, name TEXT NOT NULL,
                                       password_hash TEXT NOT NULL, created_at DOUBLE NOT NULL);
                CREATE TABLE sessions (token_hash TEXT PRIMARY KEY, account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
                                       csrf TEXT NOT NULL, expires_at DOUBLE NOT NULL);
                """)
        }
        migrator.registerMigration("v4-owners") { db in
            // The oldest account becomes the administrator; molecules get their owner; each account
            // its own list. `kept_molecules` has no foreign key to molecules: replacing a molecule
            // (same id, new file) must not empty people's lists; removing one clears its rows.
            try db.execute(sql: """
                ALTER TABLE accounts ADD COLUMN is_admin INTEGER NOT NULL DEFAULT 0;
                UPDATE accounts SET is_admin = 1 WHERE id = (SELECT id FROM accounts ORDER BY created_at, id LIMIT 1);
                ALTER TABLE molecules ADD COLUMN owner_id TEXT;
                CREATE INDEX molecules_owner ON molecules(owner_id);
                CREATE TABLE kept_molecules (
                    account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
                    molecule_id TEXT NOT NULL,
                    kept_at REAL NOT NULL,
                    PRIMARY KEY (account_id, molecule_id)
                );
                """)
        }
        migrator.registerMigration("v5-room-history") { db in
            // Where a room's trimmed log starts: its state after the last folded operation.
            try db.execute(sql: """
                CREATE TABLE room_history_bases (
                    room_id TEXT PRIMARY KEY REFERENCES rooms(id) ON DELETE CASCADE,
                    sequence INTEGER NOT NULL,
                    snapshot TEXT NOT NULL)
                """)
        }
        migrator.registerMigration("v6-archive-cache") { db in
            // Entries opened from the archives without adding them to the library: kept while
            // there is room, least recently viewed out first, and checked again after an age.
            try db.execute(sql: """
                ALTER TABLE molecules ADD COLUMN in_library INTEGER NOT NULL DEFAULT 1;
                ALTER TABLE molecules ADD COLUMN checked_at REAL;
                CREATE INDEX molecules_archive_cache ON molecules(in_library, last_viewed_at);
                """)
        }
        migrator.registerMigration("v7-room-invitations") { db in
            // Invitations by room and e-mail, pending until the invitee accepts or declines
            // (InvitationStore). Nothing stored before is touched.
            try db.execute(sql: """
                CREATE TABLE room_invitations (
                    room_id TEXT NOT NULL REFERENCES rooms(id) ON DELETE CASCADE,
                    email TEXT NOT NULL,
                    invited_by TEXT NOT NULL,
                    invited_at REAL NOT NULL,
                    PRIMARY KEY (room_id, email));
                CREATE INDEX room_invitations_email ON room_invitations(email);
                """)
        }
        migrator.registerMigration("v8-lessons") { db in
            // Lessons (their steps as JSON text) and the answers to their questions, one per person
            // and step (LessonStore). Nothing stored before is touched.
            try db.execute(sql: """
                CREATE TABLE lessons (
                    id TEXT PRIMARY KEY,
                    owner_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
                    title TEXT NOT NULL,
                    steps TEXT NOT NULL,
                    step_count INTEGER NOT NULL,
                    created_at REAL NOT NULL,
                    updated_at REAL NOT NULL);
                CREATE INDEX lessons_owner ON lessons(owner_id, updated_at);
                CREATE TABLE lesson_answers (
                    lesson_id TEXT NOT NULL REFERENCES lessons(id) ON DELETE CASCADE,
                    step_id TEXT NOT NULL,
                    answerer TEXT NOT NULL,
                    name TEXT,
                    choice INTEGER NOT NULL,
                    answered_at REAL NOT NULL,
                    PRIMARY KEY (lesson_id, step_id, answerer));
                """)
        }
        try await Task.detached { try migrator.migrate(pool) }.value
    }

    public func molecules(_ query: MoleculeQuery) async throws -> MoleculePage {
        try await pool.read { db in
            var conditions: [String] = []
            var arguments: StatementArguments = []
            if let text = query.text?.trimmingCharacters(in: .whitespaces), !text.isEmpty {
                for word in text.split(separator: " ") {
                    conditions.append("(id LIKE ? ESCAPE '\\' OR title LIKE ? ESCAPE '\\' OR organism LIKE ? ESCAPE '\\' OR description LIKE ? ESCAPE '\\')")
                    let pattern = "%" + LibrarySQL.escapeLike(String(word)) + "%"
                    for _ in 0..<4 { _ = arguments.append(contentsOf: [pattern]) }
                }
            }
            if let source = query.source {
                conditions.append("source = ?")
                _ = arguments.append(contentsOf: [source.rawValue])
            }
            if let account = query.keptBy {
                conditions.append("id IN (SELECT molecule_id FROM kept_molecules WHERE account_id = ?)")
                _ = arguments.append(contentsOf: [account])
            }
            if let inLibrary = query.inLibrary {
                conditions.append("in_library = ?")
                _ = arguments.append(contentsOf: [inLibrary])
            }
            let filter = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
            let total = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM molecules" + filter, arguments: arguments) ?? 0
            var pageArguments = arguments
            _ = pageArguments.append(contentsOf: [query.limit, query.offset])
            let rows = try Row.fetchAll(db, sql: "SELECT * FROM molecules" + filter + " ORDER BY " + LibrarySQL.orderBy(query.order)
                                        + " LIMIT ? OFFSET ?", arguments: pageArguments)
            return MoleculePage(total: total, molecules: try rows.map(Self.record))
        }
    }

    public func molecule(id: String) async throws -> MoleculeRecord? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM molecules WHERE id = ?", arguments: [id]).map(Self.record)
        }
    }

    public func add(_ r: MoleculeRecord, compressedFile: [UInt8]) async throws {
        try await pool.write { db in
            try db.execute(sql: "INSERT INTO files (hash, gzip) VALUES (?, ?) ON CONFLICT(hash) DO NOTHING",
                           arguments: [r.fileHash, Data(compressedFile)])
            let previous = try String.fetchOne(db, sql: "SELECT file_hash FROM molecules WHERE id = ?", arguments: [r.id])
            try db.execute(sql: "DELETE FROM molecules WHERE id = ?", arguments: [r.id])
            try db.execute(sql: """
                INSERT INTO molecules (id, source, title, description, method, resolution, organism, atoms, residues,
                    chains, format, file_hash, file_size, summary, added_at, last_viewed_at, owner_id, in_library, checked_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [r.id, r.source.rawValue, r.title, r.description, r.method, r.resolution, r.organism, r.atoms,
                                 r.residues, r.chains, r.format, r.fileHash, r.fileSize, r.summaryJSON,
                                 r.addedAt.timeIntervalSince1970, r.lastViewedAt?.timeIntervalSince1970, r.ownerID,
                                 r.inLibrary, r.checkedAt?.timeIntervalSince1970])
            if let previous, previous != r.fileHash { try Self.dropFileIfUnused(db, hash: previous) }
        }
    }

    public func compressedFile(moleculeID: String) async throws -> [UInt8]? {
        try await pool.read { db in
            try Data.fetchOne(db, sql: "SELECT f.gzip FROM files f JOIN molecules m ON m.file_hash = f.hash WHERE m.id = ?",
                              arguments: [moleculeID]).map { [UInt8]($0) }
        }
    }

    public func remove(id: String) async throws -> Bool {
        try await pool.write { db in
            guard let hash = try String.fetchOne(db, sql: "SELECT file_hash FROM molecules WHERE id = ?", arguments: [id]) else { return false }
            try db.execute(sql: "DELETE FROM molecules WHERE id = ?", arguments: [id])
            try db.execute(sql: "DELETE FROM kept_molecules WHERE molecule_id = ?", arguments: [id])
            try Self.dropFileIfUnused(db, hash: hash)
            return true
        }
    }

    public func touch(id: String) async throws {
        try await pool.write { db in
            try db.execute(sql: "UPDATE molecules SET last_viewed_at = ? WHERE id = ?", arguments: [Date().timeIntervalSince1970, id])
        }
    }

    public func count() async throws -> Int {
        try await pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM molecules WHERE in_library = 1") ?? 0 }
    }

    public func moveIntoLibrary(id: String) async throws -> Bool {
        try await pool.write { db in
            try db.execute(sql: "UPDATE molecules SET in_library = 1 WHERE id = ?", arguments: [id])
            return db.changesCount == 1
        }
    }

    public func markChecked(id: String, at date: Date) async throws {
        try await pool.write { db in
            try db.execute(sql: "UPDATE molecules SET checked_at = ? WHERE id = ?", arguments: [date.timeIntervalSince1970, id])
        }
    }

    public func archiveCacheSize() async throws -> ArchiveCacheSize {
        try await pool.read { db in
            let row = try Row.fetchOne(db, sql: "SELECT COUNT(*) AS n, COALESCE(SUM(file_size), 0) AS bytes FROM molecules WHERE in_library = 0")
            return ArchiveCacheSize(entries: row?["n"] ?? 0, bytes: row?["bytes"] ?? 0)
        }
    }

    public func evictArchiveCache(limitBytes: Int) async throws -> [String] {
        try await pool.write { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT id, file_size, file_hash FROM molecules WHERE in_library = 0
                ORDER BY COALESCE(last_viewed_at, added_at) DESC, id
                """)
            var kept = 0
            var removed: [String] = []
            for row in rows {
                kept += row["file_size"] as Int
                guard kept > limitBytes else { continue }
                let id: String = row["id"]
                try db.execute(sql: "DELETE FROM molecules WHERE id = ?", arguments: [id])
                try db.execute(sql: "DELETE FROM kept_molecules WHERE molecule_id = ?", arguments: [id])
                try Self.dropFileIfUnused(db, hash: row["file_hash"])
                removed.append(id)
            }
            return removed
        }
    }

    public func keep(moleculeID: String, accountID: String) async throws {
        try await pool.write { db in
            try db.execute(sql: "INSERT OR IGNORE INTO kept_molecules (account_id, molecule_id, kept_at) VALUES (?, ?, ?)",
                           arguments: [accountID, moleculeID, Date().timeIntervalSince1970])
        }
    }

    public func unkeep(moleculeID: String, accountID: String) async throws -> Bool {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM kept_molecules WHERE account_id = ? AND molecule_id = ?", arguments: [accountID, moleculeID])
            return db.changesCount == 1
        }
    }

    public func storedBytes(ownerID: String?) async throws -> Int {
        try await pool.read { db in
            if let ownerID {
                return try Int.fetchOne(db, sql: "SELECT COALESCE(SUM(file_size), 0) FROM molecules WHERE owner_id = ?", arguments: [ownerID]) ?? 0
            }
            return try Int.fetchOne(db, sql: "SELECT COALESCE(SUM(file_size), 0) FROM molecules") ?? 0
        }
    }

    public func cachedModel(key: String) async throws -> CachedModel? {
        let found = try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT key, molecule_id, media_type, bytes FROM model_cache WHERE key = ?", arguments: [key])
                .map { CachedModel(key: $0["key"], moleculeID: $0["molecule_id"], mediaType: $0["media_type"], bytes: [UInt8]($0["bytes"] as Data)) }
        }
        if found != nil {
            try await pool.write { db in
                try db.execute(sql: "UPDATE model_cache SET last_used = ? WHERE key = ?", arguments: [Date().timeIntervalSince1970, key])
            }
        }
        return found
    }

    public func cacheModel(_ m: CachedModel) async throws {
        let limit = cacheLimitBytes
        try await pool.write { db in
            // The molecule may have been removed meanwhile; then there is nothing to cache for.
            guard try Bool.fetchOne(db, sql: "SELECT EXISTS(SELECT 1 FROM molecules WHERE id = ?)", arguments: [m.moleculeID]) == true else { return }
            try db.execute(sql: """
                INSERT INTO model_cache (key, molecule_id, media_type, bytes, size, last_used) VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT(key) DO UPDATE SET bytes = excluded.bytes, size = excluded.size, last_used = excluded.last_used
                """, arguments: [m.key, m.moleculeID, m.mediaType, Data(m.bytes), m.bytes.count, Date().timeIntervalSince1970])
            let rows = try Row.fetchAll(db, sql: "SELECT key, size FROM model_cache ORDER BY last_used DESC")
            var kept = 0
            for row in rows {
                let size: Int = row["size"]
                kept += size
                if kept > limit { try db.execute(sql: "DELETE FROM model_cache WHERE key = ?", arguments: [row["key"] as String]) }
            }
        }
    }

    public func cacheSize() async throws -> Int {
        try await pool.read { db in try Int.fetchOne(db, sql: "SELECT COALESCE(SUM(size), 0) FROM model_cache") ?? 0 }
    }

    public func close() async throws { try pool.close() }

    private static func dropFileIfUnused(_ db: Database, hash: String) throws {
        try db.execute(sql: "DELETE FROM files WHERE hash = ? AND NOT EXISTS (SELECT 1 FROM molecules WHERE file_hash = ?)",
                       arguments: [hash, hash])
    }

    private static func record(_ row: Row) throws -> MoleculeRecord {
        let id: String = row["id"], raw: String = row["source"]
        guard let source = MoleculeSource(rawValue: raw) else {
            throw LibraryStoreError("molecule \(id): unknown source '\(raw.prefix(40))' in the database")
        }
        return MoleculeRecord(id: id, source: source, title: row["title"], description: row["description"],
                       method: row["method"], resolution: row["resolution"], organism: row["organism"],
                       atoms: row["atoms"], residues: row["residues"], chains: row["chains"], format: row["format"],
                       fileHash: row["file_hash"], fileSize: row["file_size"], summaryJSON: row["summary"],
                       addedAt: Date(timeIntervalSince1970: row["added_at"]),
                       lastViewedAt: (row["last_viewed_at"] as Double?).map(Date.init(timeIntervalSince1970:)),
                       ownerID: row["owner_id"], inLibrary: row["in_library"],
                       checkedAt: (row["checked_at"] as Double?).map(Date.init(timeIntervalSince1970:)))
    }
}

/// SQL pieces both stores share.
enum LibrarySQL {
    static func orderBy(_ order: MoleculeQuery.Order) -> String {
        switch order {
        case .recent: return "COALESCE(last_viewed_at, added_at) DESC, id"
        case .id: return "id"
        case .title: return "title, id"
        case .added: return "added_at DESC, id"
        }
    }

    /// `text` with LIKE's wildcards taken literally (escape character `\`).
    static func escapeLike(_ text: String) -> String {
        var out = ""
        for c in text {
            if c == "%" || c == "_" || c == "\\" { out.append("\\") }
            out.append(c)
        }
        return out
    }
}
