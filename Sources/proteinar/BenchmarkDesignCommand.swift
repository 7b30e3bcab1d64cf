import ArgumentParser
import Foundation
import MoleculeLibrary
import MoleculeMesh
import ProteinDesign
import SceneExport

/// Times the builder in this process: designs of about 50, 200 and 1,000 residues, built and
/// checked (coil search included), then exported as a cartoon USDZ; `scripts/benchmarks/benchmark-design` runs it.
struct BenchmarkDesignCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench-design", abstract: "Measure building, checking and exporting designs (one JSON line each).",
        shouldDisplay: false)

    @Option(help: "Repetitions; the fastest and the median are reported.") var repetitions: Int = 5

    /// Helices joined by coils, the shape of most designed proteins (helical bundles); one design
    /// ends in a β-hairpin, whose search is the hardest.
    static func bundle(_ helices: Int) -> String {
        (0..<helices).map { _ in "helix:16" }.joined(separator: ",coil:4,")
    }
    static let designs: [(String, String)] = [
        ("50", "helix:16,coil:4,helix:16,coil:2,strand:6,coil:2,strand:6"),   // 52 residues
        ("200", bundle(10) + ",coil:4,strand:6,coil:2,strand:6,coil:2"),     // 212
        ("1000", bundle(50)),                                                 // 996
    ]

    /// Issue 16's targets: a 5-piece design (β-α-β) in under 200 ms and a 10-piece one (a helical
    /// hairpin, a β-meander and a helix) in under 1 s, median of 20 seeds.
    static let pieceDesigns: [(String, String)] = [
        ("5 pieces", "strand:6,coil:3,helix:12,coil:3,strand:6"),
        ("10 pieces", "helix:14,coil:4,helix:14,coil:4,strand:6,coil:2,strand:6,coil:2,strand:6,coil:3"),
    ]

    func run() throws {
        for (label, pieces) in Self.pieceDesigns {
            var times: [Double] = [], valid = 0
            for seed: UInt64 in 1...20 {
                let spec = try DesignSpec(parsing: pieces, seed: seed)
                let t0 = DispatchTime.now().uptimeNanoseconds
                let design = ProteinDesigner.build(spec)
                times.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6)
                if design.verdict.isValid { valid += 1 }
            }
            let sorted = times.sorted()
            let line: [String: Any] = [
                "design": label, "pieces_text": pieces, "seeds": 20, "valid_seeds": valid,
                "build_ms_median": (sorted[9] + sorted[10]) / 2, "build_ms_max": sorted.last ?? 0,
            ]
            print(String(decoding: try JSONSerialization.data(withJSONObject: line, options: [.sortedKeys]), as: UTF8.self))
        }
        for (label, pieces) in Self.designs {
            let spec = try DesignSpec(parsing: pieces)
            var build: [Double] = [], export: [Double] = []
            var valid = false, triangles = 0, bytes = 0
            for _ in 0..<max(1, repetitions) {
                let t0 = DispatchTime.now().uptimeNanoseconds
                let design = ProteinDesigner.build(spec)
                let t1 = DispatchTime.now().uptimeNanoseconds
                var options = MoleculeSceneOptions()
                options.representation = .cartoon
                let (scene, report) = try MoleculeSceneBuilder.build(design.structure, options: options)
                let usdz = ModelFormat.usdz.encode(scene)
                let t2 = DispatchTime.now().uptimeNanoseconds
                build.append(Double(t1 - t0) / 1e6)
                export.append(Double(t2 - t1) / 1e6)
                valid = design.verdict.isValid
                triangles = report.triangles
                bytes = usdz.count
            }
            let total = zip(build, export).map { $0 + $1 }
            func median(_ v: [Double]) -> Double { v.sorted()[v.count / 2] }
            let line: [String: Any] = [
                "design": label, "residues": spec.residueCount, "pieces": spec.pieces.count, "valid": valid,
                "build_ms_best": build.min() ?? 0, "build_ms_median": median(build),
                "usdz_ms_best": export.min() ?? 0, "total_ms_best": total.min() ?? 0, "total_ms_median": median(total),
                "triangles": triangles, "usdz_bytes": bytes,
            ]
            print(String(decoding: try JSONSerialization.data(withJSONObject: line, options: [.sortedKeys]), as: UTF8.self))
        }
    }
}
