import MoleculeLibrary
import PDBArchive

/// How `proteinar serve` runs.
public struct ServerConfiguration: Sendable {
    /// 0.0.0.0 so that phones on the same network can open the web app.
    public var host = "0.0.0.0"
    /// 0 picks a free port (tests).
    public var port = 8080
    public var dataDirectory = "proteinar-data"
    /// `postgres://…` to share a library between servers; nil for SQLite in the data directory.
    public var databaseURL: String?
    /// SQLite: sync to disk at every commit (power-cut safe, slower) instead of at checkpoints
    /// (safe when the server process is killed).
    public var sqliteSyncEveryCommit = false
    public var endpoints = ArchiveEndpoints()
    public var retry = RetryPolicy()
    public var cacheLimitBytes = 512 << 20
    /// Models kept in memory, ready to send, besides the library's cache.
    public var hotCacheBytes = 128 << 20
    public var maxUploadBytes = 64 << 20
    public var installStarterLibrary = true
    /// Folder of the web app; nil serves the copy bundled with the server.
    public var webRoot: String?
    /// Libraries the web app loads from Debian's packages, each served at /vendor/NAME/ when its
    /// folder is there (scripts/tools/install-web-libraries.sh installs them): Leaflet for the map
    /// of rooms (libjs-leaflet), the QR code encoder for the desktop's "open on your phone"
    /// (node-qrcode-generator). Without one, the page says so and offers what it can instead.
    public var webLibraries = [
        "leaflet": "/usr/share/javascript/leaflet",
        "qrcode-generator": "/usr/share/javascript/qrcode-generator",
    ]
    /// How much each person and the whole library may keep.
    public var quota = StorageQuota()
    /// The archive cache: entries anyone opened, kept apart from the library.
    public var archiveCache = ArchiveCachePolicy()
    /// Who may do what and how much one client may cost (docs/security.md).
    public var limits = ServerLimits()
    public var edge = EdgeLimits()
    /// The token `/metrics` and `/healthz?detail=true` need (`Authorization: Bearer …`); nil: no metrics.
    public var metricsToken: String?
    /// PEM files to serve HTTPS with; nil: plain HTTP (behind a TLS proxy, or on a private network).
    /// The address phones reach this server at (a name, or the proxy's), for the desktop page's
    /// QR code; nil: the computer's network addresses (`PhoneAddress`).
    public var publicURL: String?
    /// The map tile server's URL template (`https://tile.openstreetmap.org/{z}/{x}/{y}.png`): tiles
    /// are fetched by this server and sent from its own origin (`MapTiles`); nil: no map tiles.
    public var tileServer: String?
    /// Whose tiles they are, shown on the map as the tile server's terms ask.
    public var tileAttribution = "© OpenStreetMap contributors"
    public var tlsCertificate: String?
    public var tlsKey: String?
    /// Live sockets may compress large messages (permessage-deflate, which browsers offer): a late
    /// joiner's snapshot shrinks several times; small ones (an operation, an ack) go as they are.
    public var socketCompression = true
    /// Operations of each room's history the log keeps at least (0: all); older ones are folded
    /// into the room's history base (docs/rooms.md).
    public var roomHistoryOperations = 100_000
    public init() {}
}

/// Limits on what one person or client may ask of the server (each a `proteinar serve` option).
public struct ServerLimits: Sendable {
    /// Anyone may add to the library (a private classroom server); otherwise only signed-in people.
    public var openLibrary = false
    public var uploadsPerHour = 30
    /// Conversions waiting for a worker, in all, before `503`.
    public var waitingConversions = 32
    /// Conversions one client runs at once (as many again wait), before `429`.
    public var conversionsPerClient = 4
    /// Conversions running or waiting from one address, all its clients together, before `429`:
    /// room for a class of 40 phones behind one school address, not for one address to take the server.
    public var conversionsPerAddress = 48
    /// Anonymous client ids (`proteinar_client` cookies) one address may be handed in an hour.
    public var clientIDsPerAddressPerHour = 600
    /// New entries one client may open from the archives in a minute (entries the server holds cost nothing).
    public var opensPerMinute = 20
    /// New entries all the clients of one address may open in a minute.
    public var opensPerAddressPerMinute = 120
    /// Archive downloads at once, in all (eight times as many wait; beyond, `503`).
    public var archiveDownloads = 4
    /// Searches one client may send to the archive in a minute (answers kept a minute cost nothing).
    public var searchesPerMinute = 20
    /// Searches all the clients of one address may send to the archive in a minute.
    public var searchesPerAddressPerMinute = 120
    public var socketsPerRoom = 1_000
    public var socketsPerAddress = 100
    public var roomsPerAccount = 50
    /// Password hashes (registrations and sign-ins) per client address per minute.
    public var bcryptPerMinute = 60
    /// Room invitations one account may send in an hour (a burst, then one every 36 s).
    public var invitationsPerHour = 100
    /// Room invitations one account may send in a day.
    public var invitationsPerDay = 500
    public init() {}
}

