import Molecule
import SceneExport

/// Scenes of two structures: both at once, the other superposed on the first and each in its own
/// colour (`compare`), or the first's motion into the other's conformation, a frame per model
/// (`morph`). The first structure stays where its own scene puts it, so that a view framed on it
/// keeps the same framing, and its atoms keep their feature ids (identify.json names them); the
/// other's parts name nothing.
public enum ComparisonScene {
    /// The first structure's colour and the other's (sRGB hex): a blue and an orange that people
    /// with the commoner colour-vision deficiencies still tell apart.
    public static let colors = (first: 0x4F7FD6, other: 0xF08A24)

    public static func hex(_ color: Int) -> String {
        let digits = String(color, radix: 16)
        return "#" + String(repeating: "0", count: max(0, 6 - digits.count)) + digits
    }

    /// `other` superposed on `structure` (`superposition` moves the other onto it), each in its
    /// colour, in the style of `options`, each with half the triangle budget. Only the first model
    /// of each is drawn; selection, highlight and sticks apply to the first structure.
    public static func compare(_ structure: Structure, with other: Structure, superposition: SuperpositionResult,
                               options: MoleculeSceneOptions) throws -> (TriangleScene, MoleculeSceneReport) {
        guard options.model == 1, !options.allModels else { throw MeshOptionError("compare shows each molecule's first model; leave out model") }
        guard options.site == nil else { throw MeshOptionError("compare and site: one at a time") }
        var own = options
        own.partner = nil
        own.maxTriangles = max(1, options.maxTriangles / 2)
        var theirs = own
        theirs.selection = nil; theirs.highlight = nil; theirs.sticks = nil; theirs.assembly = nil
        var (scene, report) = try MoleculeSceneBuilder.build(structure, options: own, placing: false)
        var (moved, otherReport) = try MoleculeSceneBuilder.build(other.transformed(by: superposition.transform), options: theirs, placing: false)
        paint(&scene.meshes, colors.first, keepFeatures: true)
        paint(&moved.meshes, colors.other, keepFeatures: false)
        scene.append(moved, namePrefix: "other-")
        MoleculeSceneBuilder.place(&scene, size: options.size)
        report.triangles = scene.triangleCount
        report.notes += otherReport.notes.map { "the other molecule: \($0)" }
        return (scene, report)
    }

    /// The morph's frames drawn as a structure of many models (`model=N`, or every frame with
    /// `allModels`), their feature ids turned into the first structure's atom indices.
    public static func morph(_ morph: Morph.Result, options: MoleculeSceneOptions) throws -> (TriangleScene, MoleculeSceneReport) {
        guard options.site == nil else { throw MeshOptionError("morph and site: one at a time") }
        guard options.allModels || options.model <= morph.frames else {
            throw MeshOptionError("model \(options.model): the morph has \(morph.frames) frames")
        }
        var plain = options
        plain.partner = nil
        var (scene, report) = try MoleculeSceneBuilder.build(morph.structure, options: plain)
        for k in scene.meshes.indices {
            scene.meshes[k].features = scene.meshes[k].features.map {
                $0 == TriangleMesh.noFeature || Int($0) >= morph.sourceAtoms.count ? TriangleMesh.noFeature : UInt32(morph.sourceAtoms[Int($0)])
            }
        }
        report.notes.append("a morph of \(morph.atoms) atoms in \(morph.frames) frames")
        return (scene, report)
    }

    /// Every vertex in `color` (lit as the molecule's own colours are), features kept or dropped.
    static func paint(_ meshes: inout [TriangleMesh], _ color: Int, keepFeatures: Bool) {
        let linear = SRGB.linear(hex: UInt32(color))
        for k in meshes.indices {
            meshes[k].colors = [SIMD4<Float>](repeating: linear, count: meshes[k].colors.count)
            if !keepFeatures { meshes[k].features = [UInt32](repeating: TriangleMesh.noFeature, count: meshes[k].features.count) }
        }
    }
}
