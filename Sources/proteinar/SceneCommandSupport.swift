import ArgumentParser
import Foundation
import Molecule
import MoleculeLibrary
import MoleculeMesh
import SceneExport

/// The options `convert` and `render` share: what to draw and how.
struct SceneArguments: ParsableArguments {
    @Argument(help: "The structure file (PDB, mmCIF, BinaryCIF, SDF/MOL, XYZ; gzip or not).") var input: String
    @Option(help: "Representation: \(Representation.allCases.map(\.rawValue).joined(separator: ", ")).") var style = "auto"
    @Option(help: "Colour scheme: \(ColorScheme.allCases.map(\.rawValue).joined(separator: ", ")) (default: chain for cartoons and surfaces, element for atoms).")
    var color: String?
    @Option(help: "Draw only this selection (A, A:10-50, ligands, water, hydrogens, protein, nucleic, all; commas join, 'not ' negates).")
    var select: String?
    @Option(help: "Dim everything but this selection.") var highlight: String?
    @Option(help: "Hide groups: water, hydrogens, ligands (comma-separated).") var hide = "water"
    @Option(help: "Build biological assembly N.") var assembly: String?
    @Option(help: "Also draw this selection as sticks (over a cartoon, say).") var sticks: String?
    @Option(help: "The binding-site view of this ligand (AP5 or A:215): ligand, site residues, interactions as dashed tubes.")
    var site: String?
    @Option(help: "Draw model N of an NMR ensemble or multi-model file (from 1), or all: every model as a GLB's animation.")
    var model: String?

    /// The scene options, every value checked by the model codec (the options named as
    /// `ModelRequest.Option` names them, with `more` such as `size`) so that a typo fails before any work.
    func sceneOptions(maxTriangles: Int?, more: [String: String] = [:]) throws -> MoleculeSceneOptions {
        var parameters = more
        parameters["style"] = style
        parameters["hide"] = hide
        parameters["color"] = color
        parameters["select"] = select
        parameters["highlight"] = highlight
        parameters["assembly"] = assembly
        parameters["sticks"] = sticks
        parameters["site"] = site
        parameters["model"] = model
        parameters["max-triangles"] = maxTriangles.map(String.init)
        do {
            return try ModelRequest.sceneOptions(parameters, limits: .commandLine)
        } catch {
            // The codec names options as URLs do ("size '0': …"); here they are flags ("--size '0': …").
            let named = ModelRequest.Option.allCases.contains { error.description.hasPrefix($0.rawValue + " '") }
            throw CLIError((named ? "--" : "") + error.description)
        }
    }

    /// Reads the input and builds the scene, reporting progress and level-of-detail decisions.
    func buildScene(_ options: MoleculeSceneOptions, progress: Progress) throws -> (TriangleScene, MoleculeSceneReport) {
        progress("reading \(input)")
        let structure = try readStructure(input)
        progress("read \(structure.models.first?.atoms.count ?? 0) atoms; building \(options.representation.rawValue) meshes")
        let built: (TriangleScene, MoleculeSceneReport)
        do { built = try MoleculeSceneBuilder.build(structure, options: options) } catch let e as MeshOptionError {
            throw CLIError("\(input): \(e)")
        }
        for note in built.1.notes { progress(note) }
        return built
    }
}

/// Timestamped progress lines on standard error, for long work.
struct Progress {
    let started = Date()
    func callAsFunction(_ message: String) {
        FileHandle.standardError.write(Data(String(format: "[%6.2fs] %@\n", Date().timeIntervalSince(started), message).utf8))
    }
}

/// Fails before any work when `output` cannot be written.
func checkWritable(_ output: String) throws {
    let directory = (output as NSString).deletingLastPathComponent
    let dir = directory.isEmpty ? "." : directory
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: dir, isDirectory: &isDirectory), isDirectory.boolValue,
          FileManager.default.isWritableFile(atPath: dir) else {
        throw CLIError("\(output): cannot write there (no such folder, or no permission)")
    }
}

/// Writes `bytes` to `path` without first copying them into a `Data` (outputs reach tens of
/// megabytes, and the copy costs as much as the write).
func writeFile(_ bytes: [UInt8], to path: String) throws {
    try bytes.withUnsafeBytes { raw in
        guard let base = raw.baseAddress else { return try Data().write(to: URL(fileURLWithPath: path)) }
        try Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: raw.count, deallocator: .none)
            .write(to: URL(fileURLWithPath: path))
    }
}
