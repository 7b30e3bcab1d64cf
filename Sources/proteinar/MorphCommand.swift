import ArgumentParser
import Foundation
import Molecule
import MoleculeLibrary
import MoleculeMesh
import SceneExport

struct MorphCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "morph",
        abstract: "Morph one conformation of a protein into another (1AKE into 4AKE): frames to play, checked for bonds and clashes.",
        discussion: """
            Superposes OTHER on FILE (as superpose does), pairs their atoms residue by residue, and makes \
            frames linear in Cartesian space between the two, each frame's bond lengths and angles then \
            brought back to their values interpolated between the ends. Prints each frame's backbone \
            clashes (the builder's rule) and how far bonds stray. -o writes the frames: a GLB whose \
            animation plays them (.glb), or every frame as a model (.pdb, .cif). docs/formats.md, "Morph".
            """
    )

    @Argument(help: "The first conformation (frame 1).") var file: String
    @Argument(help: "The other conformation (the last frame), superposed on the first.") var other: String
    @Option(help: "Frames, both ends included (2 to \(Morph.mostFrames)).") var frames = 12
    @Option(help: "FILE's chain (author id); default: the pair that aligns best.") var chain: String?
    @Option(name: .customLong("other-chain"), help: "OTHER's chain (author id).") var otherChain: String?
    @Option(help: "The GLB's style: \(Representation.allCases.map(\.rawValue).joined(separator: ", ")).") var style = "cartoon"
    @Option(name: [.short, .long], help: "Write the frames: .glb (an animation), .pdb or .cif (a model per frame).") var output: String?

    func run() throws {
        let format = output.map { ($0 as NSString).pathExtension.lowercased() }
        if let format, !["glb", "pdb", "cif"].contains(format) {
            throw CLIError("\(output ?? ""): unknown output format '\(format)'; accepted: glb, pdb, cif")
        }
        let a = try readStructure(file), b = try readStructure(other)
        let morph: Morph.Result
        do { morph = try Morph.morph(from: a, to: b, options: .init(frames: frames, chain: chain, otherChain: otherChain)) } catch {
            throw CLIError("morph \(file) into \(other): \(error)")
        }
        let fit = morph.superposition
        print("\(other) chain \(fit.chainA) superposed on \(file) chain \(fit.chainB): \(fit.alignedLength) residues aligned, "
              + "RMSD \(String(format: "%.2f", fit.rmsdAll)) Å over all (\(String(format: "%.2f", fit.rmsd)) Å over \(fit.keptLength))")
        print("\(morph.frames) frames of \(morph.atoms) atoms (\(morph.unpaired) of \(file)'s chain and \(morph.otherUnpaired) of \(other)'s without a partner)")
        print("bonds: at most \(percent(morph.worstBondChange)) from their lengths (plain linear frames: \(percent(morph.worstLinearBondChange)))")
        print("backbone clashes per frame: \(morph.clashes.map(String.init).joined(separator: " "))")
        guard let output, let format else { return }
        switch format {
        case "glb":
            // The screen's default budget (300,000 triangles), shared by the frames.
            let options: MoleculeSceneOptions
            do { options = try ModelRequest.sceneOptions(["style": style, "model": "all"], limits: .commandLine) } catch { throw CLIError("--\(error)") }
            let scene: TriangleScene
            do { scene = try ComparisonScene.morph(morph, options: options).0 } catch { throw CLIError("\(error)") }
            try writeFile(ModelFormat.glb.encode(scene, mtlFileName: "model.mtl", glb: .quantized), to: output)
        case "pdb": try writeFile(StructureWriter.pdb(morph.structure), to: output)
        default: try writeFile(StructureWriter.mmCIF(morph.structure), to: output)
        }
        FileHandle.standardError.write(Data("wrote \(output)\n".utf8))
    }

    private func percent(_ x: Double) -> String { String(format: "%.1f %%", x * 100) }
}
