import ArgumentParser
import Foundation
import Molecule

/// Times reading (and optionally assembly expansion) in this process and prints one JSON line;
/// `scripts/benchmarks/benchmark-read` runs it per file in a fresh process beside gemmi.
struct BenchmarkCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench-read", abstract: "Measure reading speed and memory for one file (one JSON line).",
        shouldDisplay: false)

    @Argument var file: String
    @Option(help: "Also expand this assembly and time it separately.") var assembly: String?
    @Option(help: "Repetitions; the fastest is reported.") var repetitions: Int = 5

    func run() throws {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
        let name = (file as NSString).lastPathComponent
        var best = Double.infinity, bestAssembly = Double.infinity
        var atoms = 0, readAtoms = 0, structureBytes = 0
        let baseline = peakRSS()
        var kept: Structure?
        for _ in 0..<max(1, repetitions) {
            kept = nil
            let t0 = DispatchTime.now().uptimeNanoseconds
            var s = try StructureReader.read(bytes: bytes, fileName: name)
            let t1 = DispatchTime.now().uptimeNanoseconds
            best = min(best, Double(t1 - t0) / 1e9)
            readAtoms = s.models.first?.atoms.count ?? 0
            if let assembly {
                let a0 = DispatchTime.now().uptimeNanoseconds
                s = try s.expandingAssembly(assembly)
                bestAssembly = min(bestAssembly, Double(DispatchTime.now().uptimeNanoseconds - a0) / 1e9)
            }
            atoms = s.models.first?.atoms.count ?? 0
            structureBytes = s.models.reduce(0) { $0 + $1.approximateByteCount }
            kept = s
        }
        let peak = peakRSS()
        var out: [String: Any] = [
            "file": name, "bytes": bytes.count, "atoms": readAtoms, "atomsAllModels": kept?.models.reduce(0) { $0 + $1.atoms.count } ?? 0,
            "readSeconds": best, "mbPerSecond": Double(bytes.count) / 1e6 / best,
            "atomsPerSecond": Double(readAtoms) / best,
            "modelBytesPerAtom": atoms > 0 ? Double(structureBytes) / Double(kept?.models.reduce(0) { $0 + $1.atoms.count } ?? 1) : 0,
            "peakRSSBytes": peak, "rssGrowthBytes": peak - baseline,
        ]
        if assembly != nil {
            out["assemblySeconds"] = bestAssembly
            out["assemblyAtoms"] = atoms
        }
        print(String(decoding: try JSONSerialization.data(withJSONObject: out, options: [.sortedKeys]), as: UTF8.self))
    }

    func peakRSS() -> Int {
        var usage = rusage()
        #if os(Linux)
        getrusage(RUSAGE_SELF.rawValue, &usage)
        #else
        getrusage(RUSAGE_SELF, &usage)
        #endif
        #if os(Linux)
        return usage.ru_maxrss * 1024
        #else
        return usage.ru_maxrss
        #endif
    }
}
