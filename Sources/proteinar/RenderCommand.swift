import ArgumentParser
import Foundation
import SceneRender

struct RenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Draw a structure as a PNG picture (CPU renderer: 3/4 view, soft shadows, outline).")

    @OptionGroup var scene: SceneArguments
    @Option(name: .shortAndLong, help: "Output PNG file.") var output: String
    @Option(help: "Image side in pixels.") var size = 512
    @Option(help: "Triangle budget.") var maxTriangles = 1_000_000
    @Flag(help: "Transparent background instead of white.") var transparent = false

    func run() throws {
        let progress = Progress()
        guard (output as NSString).pathExtension.lowercased() == "png" else {
            throw CLIError("\(output): the output of render is a PNG file (.png)")
        }
        guard (1...8192).contains(size) else { throw CLIError("--size must be between 1 and 8192 pixels") }
        let options = try scene.sceneOptions(maxTriangles: maxTriangles)
        try checkWritable(output)
        let (built, report) = try scene.buildScene(options, progress: progress)
        progress("\(report.triangles) triangles (\(report.summary)); rendering \(size)×\(size)")
        var renderOptions = RenderOptions()
        if transparent { renderOptions.background = .transparent }
        let image = SoftwareRenderer.render(built, width: size, height: size, options: renderOptions)
        progress("rendered; encoding PNG")
        let bytes = image.pngData()
        try writeFile(bytes, to: output)
        progress("wrote \(output) (\(bytes.count) bytes)")
    }
}
