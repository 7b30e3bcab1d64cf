import ArgumentParser
import Foundation
import Molecule

/// Times finding every ligand's interactions in this process (the file read once, before) and
/// prints one JSON line; `scripts/benchmarks/benchmark-interactions` runs it beside PLIP.
struct BenchInteractionsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench-interactions", abstract: "Measure finding interactions for one file (one JSON line).",
        shouldDisplay: false)

    @Argument var file: String
    @Option(help: "Repetitions; the fastest is reported.") var repetitions: Int = 5

    func run() throws {
        let structure = try readStructure(file)
        var best = Double.infinity
        var sites: [LigandSite] = []
        for _ in 0..<max(1, repetitions) {
            let t0 = DispatchTime.now().uptimeNanoseconds
            sites = InteractionFinder.sites(in: structure)
            best = min(best, Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9)
        }
        // Where chains touch, timed apart: the route computes both.
        var interfaces: [ChainInterface] = []
        var bestInterfaces = Double.infinity
        for _ in 0..<max(1, repetitions) {
            let t0 = DispatchTime.now().uptimeNanoseconds
            interfaces = ChainInterfaces.find(in: structure)
            bestInterfaces = min(bestInterfaces, Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9)
        }
        let out: [String: Any] = [
            "file": (file as NSString).lastPathComponent, "atoms": structure.firstModel?.atoms.count ?? 0,
            "ligands": sites.count, "interactions": sites.reduce(0) { $0 + $1.interactions.count }, "seconds": best,
            "interfaces": interfaces.count, "interfaceSeconds": bestInterfaces,
        ]
        print(String(decoding: try JSONSerialization.data(withJSONObject: out, options: [.sortedKeys]), as: UTF8.self))
    }
}
