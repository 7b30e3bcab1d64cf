// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "ProteinAR",
    platforms: [.macOS(.v14), .iOS(.v17)],
    products: [
        .library(name: "Molecule", targets: ["Molecule"]),
        .library(name: "SceneExport", targets: ["SceneExport"]),
        .executable(name: "proteinar", targets: ["proteinar"]),
    ],
    dependencies: [
        .package(url: "https://github.com/adam-fowler/compress-nio.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
    ],
    targets: [
        .target(
            name: "Molecule",
            dependencies: [.product(name: "CompressNIO", package: "compress-nio")],
            resources: [.copy("Resources/ccd-bonds.tsv")]
        ),
        // Writers of any triangle scene (molecules, drawings): standard library only.
        .target(name: "SceneExport"),
        // Molecules as triangle meshes: representations, colour schemes, selections, level of detail.
        .target(name: "MoleculeMesh", dependencies: ["Molecule", "SceneExport"]),
        // CPU rendering of triangle scenes to PNG pictures (previews, thumbnails).
        .target(name: "SceneRender", dependencies: ["SceneExport", .product(name: "CompressNIO", package: "compress-nio")]),
        .executableTarget(
            name: "proteinar",
            dependencies: [
                "Molecule", "MoleculeMesh", "SceneExport", "SceneRender",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(name: "MoleculeTests", dependencies: ["Molecule"], exclude: ["Fixtures"]),
        .testTarget(name: "SceneExportTests", dependencies: ["SceneExport"]),
        .testTarget(name: "MoleculeMeshTests", dependencies: ["MoleculeMesh"]),
        .testTarget(
            name: "SceneRenderTests",
            dependencies: ["SceneRender", "SceneExport", .product(name: "CompressNIO", package: "compress-nio")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
