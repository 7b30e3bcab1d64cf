import ArgumentParser
import Foundation
import MoleculeLibrary
import SceneExport

struct ConvertCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Turn a structure file into an AR-ready model: GLB, USDZ, OBJ, STL, DAE or PLY.")

    @OptionGroup var scene: SceneArguments
    @Option(name: .shortAndLong, help: "Output file; its extension picks the format.") var output: String
    @Option(help: "Where the model is shown: ar (100,000 triangles) or screen (300,000). Default: ar for USDZ, screen for the rest.")
    var target: String?
    @Option(help: "Triangle budget (overrides --target's).") var maxTriangles: Int?
    @Option(help: "USDZ root layer: crate (binary scene.usdc) or text (scene.usda, for reading).")
    var usdLayer: String = USDZWriter.LayerFormat.crate.rawValue
    @Option(help: "GLB storage: quantized (KHR_mesh_quantization), meshopt (quantized and EXT_meshopt_compression) or float (no extension).")
    var glb: String = GLBWriter.Encoding.quantized.rawValue
    @Option(help: "Longest side in metres.") var size: Float = 0.3
    @Flag(help: "Keep true scale (1 Å = 10⁻¹⁰ m) instead of --size.") var trueScale = false

    func run() throws {
        let progress = Progress()
        let ext = (output as NSString).pathExtension.lowercased()
        let formats = ModelFormat.allCases.filter { $0 != .mtl }  // the MTL comes with an OBJ
        guard let format = ModelFormat(rawValue: ext), format != .mtl else {
            throw CLIError("\(output): unknown output format '\(ext)'; accepted: \(formats.map(\.rawValue).joined(separator: ", "))")
        }
        guard let layerFormat = USDZWriter.LayerFormat(rawValue: usdLayer) else {
            throw CLIError("--usd-layer '\(usdLayer)': expected \(USDZWriter.LayerFormat.allCases.map(\.rawValue).joined(separator: " or "))")
        }
        guard let glbEncoding = GLBWriter.Encoding(rawValue: glb) else {
            throw CLIError("--glb '\(glb)': expected \(GLBWriter.Encoding.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        var more = trueScale ? ["true-scale": "1"] : ["size": String(size)]
        more["target"] = target ?? ModelRequest.Target.defaultTarget(for: format).rawValue
        let options = try scene.sceneOptions(maxTriangles: maxTriangles, more: more)
        try checkWritable(output)
        let (built, report) = try scene.buildScene(options, progress: progress)
        progress("\(report.triangles) triangles (\(report.summary)); writing \(ext.uppercased())")
        let bytes: [UInt8]
        if format == .usdz {
            bytes = USDZWriter.write(built, options: USDZWriter.Options(layerFormat: layerFormat))
        } else if format != .obj {
            bytes = format.encode(built, glb: glbEncoding)
        } else {
            // One OBJ writer pass gives both files.
            let mtl = ((output as NSString).deletingPathExtension as NSString).appendingPathExtension("mtl") ?? output + ".mtl"
            let files = OBJWriter.write(built, mtlFileName: (mtl as NSString).lastPathComponent)
            try writeFile(files.mtl, to: mtl)
            bytes = files.obj
        }
        try writeFile(bytes, to: output)
        progress("wrote \(output) (\(bytes.count) bytes)")
    }
}
