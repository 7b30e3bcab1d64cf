import ArgumentParser
import Foundation
import Molecule
import MoleculeMesh
import SceneExport
import SceneRender

struct RenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Draw a structure as a PNG picture (CPU renderer: 3/4 view, soft shadows, outline).",
        discussion: """
        Styles: \(Representation.allCases.map(\.rawValue).joined(separator: ", ")).
        Colours: \(ColorScheme.allCases.map(\.rawValue).joined(separator: ", ")).
        Selections: A, A:10-50, ligands, water, hydrogens, protein, nucleic, all; combine with commas, negate with 'not '.
        """)

    @Argument(help: "The structure file (PDB, mmCIF, BinaryCIF, SDF/MOL, XYZ; gzip or not).") var input: String
    @Option(name: .shortAndLong, help: "Output PNG file.") var output: String
    @Option(help: "Representation.") var style = "auto"
    @Option(help: "Colour scheme (default: chain for cartoons and surfaces, element for atoms).") var color: String?
    @Option(help: "Draw only this selection.") var select: String?
    @Option(help: "Dim everything but this selection.") var highlight: String?
    @Option(help: "Hide groups: water, hydrogens, ligands (comma-separated).") var hide = "water"
    @Option(help: "Build biological assembly N.") var assembly: String?
    @Option(help: "Image side in pixels.") var size = 512
    @Option(help: "Triangle budget.") var maxTriangles = 1_000_000
    @Flag(help: "Transparent background instead of white.") var transparent = false

    func run() throws {
        let started = Date()
        func progress(_ message: String) {
            FileHandle.standardError.write(Data(String(format: "[%6.2fs] %@\n", Date().timeIntervalSince(started), message).utf8))
        }
        guard (output as NSString).pathExtension.lowercased() == "png" else {
            throw CLIError("\(output): the output of render is a PNG file (.png)")
        }
        guard (1...8192).contains(size) else { throw CLIError("--size must be between 1 and 8192 pixels") }
        guard maxTriangles > 0 else { throw CLIError("--max-triangles must be positive") }
        var options = MoleculeSceneOptions()
        do {
            options.representation = try Representation(argument: style)
            options.colorScheme = try color.map { try ColorScheme(argument: $0) }
            options.hide = try HiddenGroup.parse(hide)
            if let select { _ = try Selection(parsing: select) }
            if let highlight { _ = try Selection(parsing: highlight) }
        } catch { throw CLIError("\(error)") }
        options.selection = select
        options.highlight = highlight
        options.assembly = assembly
        options.maxTriangles = maxTriangles

        // Fail before any work when the output cannot be written.
        let directory = (output as NSString).deletingLastPathComponent
        let dir = directory.isEmpty ? "." : directory
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: dir, isDirectory: &isDirectory), isDirectory.boolValue,
              FileManager.default.isWritableFile(atPath: dir) else {
            throw CLIError("\(output): cannot write there (no such folder, or no permission)")
        }

        progress("reading \(input)")
        let structure = try readStructure(input)
        progress("read \(structure.models.first?.atoms.count ?? 0) atoms; building \(options.representation.rawValue) meshes")
        let (scene, report) = try { () throws -> (TriangleScene, MoleculeSceneReport) in
            do { return try MoleculeSceneBuilder.build(structure, options: options) } catch let e as MeshOptionError {
                throw CLIError("\(input): \(e)")
            }
        }()
        for note in report.notes { progress(note) }
        progress("\(report.triangles) triangles (\(report.summary)); rendering \(size)×\(size)")
        var renderOptions = RenderOptions()
        if transparent { renderOptions.background = .transparent }
        let image = SoftwareRenderer.render(scene, width: size, height: size, options: renderOptions)
        progress("rendered; encoding PNG")
        let bytes = image.pngData()
        try Data(bytes).write(to: URL(fileURLWithPath: output))
        progress("wrote \(output) (\(bytes.count) bytes)")
    }
}
