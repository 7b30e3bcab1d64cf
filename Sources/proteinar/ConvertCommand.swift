import ArgumentParser
import Foundation
import Molecule
import MoleculeMesh
import SceneExport

struct ConvertCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Turn a structure file into an AR-ready model: GLB, USDZ, OBJ, STL, DAE or PLY.",
        discussion: """
        Styles: \(Representation.allCases.map(\.rawValue).joined(separator: ", ")).
        Colours: \(ColorScheme.allCases.map(\.rawValue).joined(separator: ", ")).
        Selections: A, A:10-50, ligands, water, hydrogens, protein, nucleic, all; combine with commas, negate with 'not '.
        """)

    @Argument(help: "The structure file (PDB, mmCIF, BinaryCIF, SDF/MOL, XYZ; gzip or not).") var input: String
    @Option(name: .shortAndLong, help: "Output file; its extension picks the format.") var output: String
    @Option(help: "Representation.") var style = "auto"
    @Option(help: "Colour scheme (default: chain for cartoons and surfaces, element for atoms).") var color: String?
    @Option(help: "Draw only this selection.") var select: String?
    @Option(help: "Dim everything but this selection.") var highlight: String?
    @Option(help: "Hide groups: water, hydrogens, ligands (comma-separated).") var hide = "water"
    @Option(help: "Build biological assembly N.") var assembly: String?
    @Option(help: "Triangle budget.") var maxTriangles = 300_000
    @Option(help: "Longest side in metres.") var size: Float = 0.3
    @Flag(help: "Keep true scale (1 Å = 10⁻¹⁰ m) instead of --size.") var trueScale = false

    func run() throws {
        let started = Date()
        func progress(_ message: String) {
            FileHandle.standardError.write(Data(String(format: "[%6.2fs] %@\n", Date().timeIntervalSince(started), message).utf8))
        }
        let format = (output as NSString).pathExtension.lowercased()
        let formats = ["glb", "usdz", "obj", "stl", "dae", "ply"]
        guard formats.contains(format) else {
            throw CLIError("\(output): unknown output format '\(format)'; accepted: \(formats.joined(separator: ", "))")
        }
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
        options.size = trueScale ? nil : size
        guard maxTriangles > 0, trueScale || (size > 0 && size.isFinite) else { throw CLIError("--max-triangles and --size must be positive") }

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
        progress("\(report.triangles) triangles (\(report.summary)); writing \(format.uppercased())")
        let bytes: [UInt8]
        switch format {
        case "glb": bytes = GLBWriter.write(scene)
        case "usdz": bytes = USDZWriter.write(scene)
        case "stl": bytes = STLWriter.write(scene)
        case "ply": bytes = PLYWriter.write(scene)
        case "dae": bytes = DAEWriter.write(scene)
        default:
            let mtl = ((output as NSString).deletingPathExtension as NSString).appendingPathExtension("mtl") ?? output + ".mtl"
            let files = OBJWriter.write(scene, mtlFileName: (mtl as NSString).lastPathComponent)
            try Data(files.mtl).write(to: URL(fileURLWithPath: mtl))
            bytes = files.obj
        }
        try Data(bytes).write(to: URL(fileURLWithPath: output))
        progress("wrote \(output) (\(bytes.count) bytes)")
    }
}
