// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "ProteinAR",
    platforms: [.macOS(.v14), .iOS(.v17)],
    products: [
        .library(name: "Molecule", targets: ["Molecule"]),
        .library(name: "SceneExport", targets: ["SceneExport"]),
        .library(name: "MoleculeMesh", targets: ["MoleculeMesh"]),
        .library(name: "Storage", targets: ["Storage"]),
        .library(name: "Accounts", targets: ["Accounts"]),
        .library(name: "LiveRooms", targets: ["LiveRooms"]),
        .library(name: "PDBArchive", targets: ["PDBArchive"]),
        .library(name: "ProteinDesign", targets: ["ProteinDesign"]),
        .library(name: "Rooms", targets: ["Rooms"]),
        .library(name: "Lessons", targets: ["Lessons"]),
        .library(name: "RoomHost", targets: ["RoomHost"]),
        .library(name: "RoomModels", targets: ["RoomModels"]),
        .library(name: "Geometry", targets: ["Geometry"]),
        .library(name: "TextOutput", targets: ["TextOutput"]),
        .library(name: "RoomLoad", targets: ["RoomLoad"]),
        .executable(name: "proteinar", targets: ["proteinar"]),
    ],
    dependencies: [
        .package(url: "https://github.com/adam-fowler/compress-nio.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.5.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.1"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
    ],
    targets: [
        // Vector arithmetic every module shares: standard library only.
        .target(name: "Geometry"),
        // The one text buffer with number formatting that every text writer uses, and the one JSON
        // string escaper: standard library only.
        .target(name: "TextOutput"),
        // The structure model, readers and writers, bonds, secondary structure, assemblies, selections.
        .target(
            name: "Molecule",
            dependencies: [
                "Geometry", "TextOutput",
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            resources: [.copy("Resources/ccd-bonds.tsv")]
        ),
        // Writers of any triangle scene (molecules, drawings) and the formats they write; meshoptimizer
        // (below) for GLB's meshopt compression.
        .target(name: "SceneExport", dependencies: ["CMeshOptimizer", "Geometry", "TextOutput"]),
        // Molecules as triangle meshes: representations, colour schemes, level of detail.
        // meshoptimizer from the system (Debian's libmeshoptimizer-dev): simplifies meshes that
        // the lightest tessellation still leaves over their triangle budget, and compresses GLBs
        // (EXT_meshopt_compression).
        .systemLibrary(name: "CMeshOptimizer", path: "Sources/CMeshOptimizer",
                       providers: [.apt(["libmeshoptimizer-dev"]), .brew(["meshoptimizer"])]),
        .target(name: "MoleculeMesh", dependencies: ["CMeshOptimizer", "Geometry", "Molecule", "SceneExport"]),
        // The builder: helix, strand and coil pieces into a polypeptide with ideal geometry, and a verdict.
        .target(name: "ProteinDesign", dependencies: ["Geometry", "Molecule"]),
        // Shared sketch rooms: rooms, permissions and the operation log, with no I/O.
        .target(name: "Rooms", dependencies: ["TextOutput"]),
        // Rooms hosted on a room-log store: durable before acknowledged, live to subscribers.
        .target(name: "RoomHost", dependencies: ["Rooms", "Storage", .product(name: "Logging", package: "swift-log")]),
        // CPU rendering of triangle scenes to PNG pictures (previews, thumbnails).
        .target(
            name: "SceneRender",
            dependencies: [
                "Geometry", "SceneExport",
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        // Persistence: the library's molecules, original files and cached models, accounts and room
        // logs, in SQLite or PostgreSQL.
        .target(
            name: "Storage",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        // Accounts and sessions without HTTP: who a token, cookie or guest key names; registering,
        // signing in and out (bcrypt on NIO's thread pool); the sign-in throttle.
        .target(
            name: "Accounts",
            dependencies: [
                "Rooms", "Storage",
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // Lessons without HTTP: steps (views, text, questions) checked against their limits, owned,
        // answered and tallied over a lesson store.
        .target(name: "Lessons", dependencies: ["Storage"]),
        // Clients of the RCSB PDB and AlphaFold DB.
        .target(
            name: "PDBArchive",
            dependencies: [
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        // What the server and the command line do with a library: import, fetch, the model-options
        // codec, models and thumbnails with a cache, designs.
        .target(
            name: "MoleculeLibrary",
            dependencies: [
                "Molecule", "MoleculeMesh", "SceneExport", "SceneRender", "Storage", "PDBArchive", "ProteinDesign",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            resources: [.copy("Starter")]
        ),
        // Rooms as AR models: strokes as tubes, the room's molecule at its placement.
        .target(
            name: "RoomModels",
            dependencies: [
                "Geometry", "Storage", "MoleculeLibrary", "MoleculeMesh", "SceneExport", "Rooms",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // The live room service: who is in a room and where they look (across servers), rooms as
        // the API shows them, settings changes fed to live sockets, the relay of other servers'
        // operations, compressed snapshots for late joiners. No HTTP: the server's LiveRoomSocket
        // puts it on the wire.
        .target(
            name: "LiveRooms",
            dependencies: [
                "MoleculeLibrary", "RoomHost", "Rooms", "Storage",
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The web app (plain ES modules, no build step), served by the server.
        .target(name: "WebApp", path: "Web", resources: [.copy("index.html"), .copy("app.css"), .copy("js"), .copy("sw.js"),
                                                         .copy("manifest.webmanifest"), .copy("icons")]),
        // HTTP: buildApplication/buildRouter, the routes (controllers over the services), who is
        // asking (hummingbird-auth's authenticator), the live room socket, static web files, metrics.
        .target(
            name: "ProteinARServer",
            dependencies: [
                "Accounts", "Lessons", "LiveRooms", "Storage", "Molecule", "MoleculeLibrary", "MoleculeMesh", "PDBArchive", "ProteinDesign", "RoomHost", "RoomModels",
                "SceneExport", "Rooms", "TextOutput", "WebApp",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "HummingbirdWSCompression", package: "hummingbird-websocket"),
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            resources: [.copy("openapi.yaml")]
        ),
        // The rooms' load generator (`proteinar bench-rooms`): WebSocket clients that draw at pen
        // rate and measure what the server does with it.
        .target(
            name: "RoomLoad",
            dependencies: [
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ]
        ),
        .executableTarget(
            name: "proteinar",
            dependencies: [
                "Storage", "Molecule", "MoleculeLibrary", "MoleculeMesh", "PDBArchive", "ProteinARServer", "ProteinDesign",
                "RoomLoad", "SceneExport", "SceneRender",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // Mesh checks the mesh and room-model tests share (a support target, not a test target).
        .target(name: "MeshChecks", dependencies: ["Geometry", "SceneExport"], path: "Tests/MeshChecks"),
        .testTarget(name: "MoleculeTests", dependencies: ["Molecule"], exclude: ["Fixtures"]),
        .testTarget(name: "SceneExportTests", dependencies: ["CMeshOptimizer", "SceneExport", "TextOutput"]),
        .testTarget(name: "MoleculeMeshTests", dependencies: ["Geometry", "MeshChecks", "Molecule", "MoleculeMesh", "SceneExport"]),
        .testTarget(name: "RoomModelsTests", dependencies: ["Geometry", "MeshChecks", "RoomModels", "SceneExport"]),
        .testTarget(name: "ProteinDesignTests", dependencies: ["ProteinDesign", "Molecule"]),
        .testTarget(name: "RoomsTests", dependencies: ["Rooms", "TextOutput"]),
        // What several test targets share, once: scratch stores (a temporary SQLite file, a PostgreSQL
        // database from PROTEINAR_TEST_POSTGRES_URL) and bounded waits.
        .target(
            name: "TestSupport",
            dependencies: ["Storage", .product(name: "PostgresNIO", package: "postgres-nio")],
            path: "Tests/TestSupport"
        ),
        // The RCSB and AlphaFold DB stand-in, and starting a Hummingbird application on a loopback port.
        .target(
            name: "TestArchive",
            dependencies: [
                "TestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Tests/TestArchive"
        ),
        .testTarget(name: "StorageTests", dependencies: ["Storage", "TestSupport"]),
        .testTarget(name: "LessonsTests", dependencies: ["Lessons", "Storage", "TestSupport"]),
        .testTarget(name: "RoomHostTests", dependencies: ["RoomHost", "Storage", "Rooms", "TestSupport"]),
        .testTarget(
            name: "MoleculeLibraryTests",
            dependencies: ["Storage", "MoleculeLibrary", "MoleculeMesh", "PDBArchive", "SceneExport", "TestArchive", "TestSupport"]
        ),
        .testTarget(
            name: "ProteinARServerTests",
            dependencies: [
                "LiveRooms", "Storage", "MoleculeLibrary", "PDBArchive", "ProteinARServer", "RoomModels", "SceneExport", "Rooms", "TestArchive",
                "TestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "SceneRenderTests",
            dependencies: [
                "SceneRender", "SceneExport",
                .product(name: "CompressNIO", package: "compress-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
