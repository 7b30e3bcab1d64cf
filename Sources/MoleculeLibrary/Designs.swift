import Foundation
import Molecule
import MoleculeMesh
import ProteinDesign
import Storage

/// Designs from the builder, for the server: built in a worker slot (it is CPU work), with motif
/// examples from this library, turned into models, and kept in the library on request.
extension LibraryService {
    /// The design of `spec`, built once however many ask at the same time: only the one that
    /// starts it passes `admission`.
    public func design(_ spec: DesignSpec, admission: some Admission) async throws -> Design {
        try await designsUnderWay.run(Self.recipe(spec), admission: admission, progress: nil) { [self] _ in try await design(spec) }
    }

    /// A design's file (a model, its pieces, its PDB or mmCIF text) under its cache key `key`,
    /// made by `make` once however many ask at the same time.
    public func designFile(key: String, admission: some Admission,
                           _ make: @escaping @Sendable () async throws -> [UInt8]) async throws -> [UInt8] {
        try await designFilesUnderWay.run(key, admission: admission, progress: nil) { _ in try await make() }
    }

    public func design(_ spec: DesignSpec) async throws -> Design {
        var present: Set<String> = []
        for id in Motif.exampleIDs where try await store.molecule(id: id) != nil { present.insert(id) }
        let known = present
        return try await limiter.run { ProteinDesigner.build(spec, libraryIDs: known) }
    }

    /// The design as a model file: a cartoon coloured by secondary structure unless `request` says
    /// otherwise, so helices, strands and coils show as the pieces they were built from.
    public func model(of design: Design, request: ModelRequest) async throws -> [UInt8] {
        try await limiter.run { try Self.encode(design, as: request) }
    }

    /// A design as a model; the server and `proteinar build` both make designs' models this way.
    public static func encode(_ design: Design, as request: ModelRequest) throws -> [UInt8] {
        try encodeDesigned(design.structure, as: request, mtlFileName: "design.mtl")
    }

    /// The design's pieces before they are joined (`ProteinDesigner.pieceLayout`), as a model made
    /// the way the design's is, so the pieces look like the parts of the protein they become.
    public func piecesModel(of spec: DesignSpec, request: ModelRequest) async throws -> [UInt8] {
        try await limiter.run { try Self.encodeDesigned(ProteinDesigner.pieceLayout(spec), as: request, mtlFileName: "pieces.mtl") }
    }

    /// The builder's structures as models: a cartoon coloured by secondary structure unless asked otherwise.
    static func encodeDesigned(_ structure: Structure, as request: ModelRequest, mtlFileName: String) throws -> [UInt8] {
        if request.output == .identify { return try LibraryService.identifyTable(structure) }
        if request.output == .interactions { return try LibraryService.interactions(structure) }
        var options = request.options
        if options.representation == .auto { options.representation = .cartoon }
        if options.colorScheme == nil { options.colorScheme = .secondaryStructure }
        let (scene, _) = try MoleculeSceneBuilder.build(structure, options: options)
        return encode(scene, as: request.output, mtlFileName: mtlFileName)
    }

    /// The recipe that fixes a design (its pieces, sequence, seed, and hydrogens when asked for): what its models are made
    /// from, for their cache keys, and the source of its library id.
    public static func recipe(_ spec: DesignSpec) -> String {
        "\(spec.piecesText)|\(String(spec.sequence))|\(spec.seed)" + (spec.hydrogens ? "|hydrogens" : "")
    }

    /// The recipe of the pieces' layout: pieces and sequence (no seed: nothing in it is random).
    /// It starts with a word no piece list starts with, so its cache keys never meet a design's.
    public static func piecesRecipe(_ spec: DesignSpec) -> String { "pieces|\(spec.piecesText)|\(String(spec.sequence))" }

    /// Stores the design as a molecule (id `design-` and a hash of its recipe: pieces, sequence, seed and hydrogens),
    /// or returns the one stored before.
    public func save(_ design: Design, owner: String? = nil) async throws -> MoleculeRecord {
        let id = "design-" + Hashing.sha256Hex(Array(Self.recipe(design.spec).utf8)).prefix(12)
        if let existing = try await store.molecule(id: id) {
            if let owner { try await store.keep(moleculeID: id, accountID: owner) }
            return existing
        }
        let status = design.verdict.isValid ? "holds together" : "does not hold together"
        return try await add(bytes: StructureWriter.pdb(design.structure), fileName: "\(id).pdb", id: id, source: .design,
                             description: "Built in ProteinAR from \(design.spec.name); it \(status).", owner: owner)
    }
}
