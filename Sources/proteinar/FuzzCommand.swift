import ArgumentParser
import Foundation
import Molecule

/// Seeded random-mutation fuzzing of the readers and of what runs after them (bonds, DSSP,
/// assemblies, summary, writers). Before each run the mutated input is written to `WORK/current`
/// with an unbuffered write, so when the process dies the input that killed it is on disk;
/// `scripts/tools/fuzz` keeps such inputs as regression tests.
struct FuzzCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fuzz", abstract: "Fuzz the structure readers with seeded random mutations.", shouldDisplay: false)

    @Option(help: "Seconds to run.") var seconds: Double = 60
    @Option(help: "Random seed (runs are reproducible).") var seed: UInt64 = 1
    @Option(help: "Folder for the current input.") var work: String = "fuzz-out"
    @Flag(help: "Mutate gzip-compressed seeds as they are instead of their content.") var keepGzip = false
    @Argument(help: "Seed files.") var seeds: [String]

    func run() throws {
        var corpus: [[UInt8]] = []
        for path in seeds {
            let raw = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            if !keepGzip, StructureReader.isGzip(raw) {
                corpus.append(try StructureReader.decompressGzip(raw))
            } else {
                corpus.append(raw)
            }
        }
        guard !corpus.isEmpty else { throw CLIError("no seed files") }
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        let fd = open(work + "/current", O_RDWR | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { throw CLIError("cannot write \(work)/current") }
        defer { close(fd) }

        var rng = SeededGenerator(seed: seed)
        let deadline = Date().addingTimeInterval(seconds)
        var iterations = 0, accepted = 0, rejected = 0
        while Date() < deadline {
            var input = corpus[Int(rng.next() % UInt64(corpus.count))]
            let mutations = 1 + Int(rng.next() % 6)
            for _ in 0..<mutations { Mutator.mutate(&input, corpus: corpus, rng: &rng) }
            _ = input.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
            _ = ftruncate(fd, off_t(input.count))
            iterations += 1
            do {
                let s = try StructureReader.read(bytes: input, fileName: "fuzz")
                exercise(s)
                accepted += 1
            } catch {
                rejected += 1
            }
        }
        print("{\"iterations\":\(iterations),\"read\":\(accepted),\"rejected\":\(rejected),\"seconds\":\(seconds)}")
    }

    /// What `proteinar info` and the converters do with a structure that was read.
    func exercise(_ s: Structure) {
        for i in s.models.indices.prefix(2) {
            _ = BondBuilder.bonds(of: s.models[i], in: s)
            _ = s.secondaryStructure(modelIndex: i, compute: true)
            _ = s.secondaryStructure(modelIndex: i)
        }
        _ = StructureSummary(s)
        if let a = s.assemblies.first { _ = try? s.expandingAssembly(a.id, maximumAtoms: 2_000_000) }
        if s.models.first.map({ $0.atoms.count < 20_000 }) ?? false {
            _ = try? StructureReader.read(bytes: StructureWriter.pdb(s), fileName: "fuzz-rewrite.pdb")
            _ = try? StructureReader.read(bytes: StructureWriter.mmCIF(s), fileName: "fuzz-rewrite.cif")
        }
    }
}

/// Byte- and line-level mutations that reach the readers' edge cases: bit flips, interesting
/// bytes (quotes, `;`, `.`, `?`, digits, signs, NUL, 0xFF), deletions, duplications, truncation,
/// splices between seeds, long digit runs and line shuffles.
enum Mutator {
    static let interesting: [UInt8] = Array("0123456789-+.?;'\"_ #\n\r\tAaZzEe()*,".utf8) + [0, 0x7F, 0x80, 0xC3, 0xFF]

    static func mutate(_ b: inout [UInt8], corpus: [[UInt8]], rng: inout SeededGenerator) {
        if b.isEmpty { b = [interesting[Int(rng.next() % UInt64(interesting.count))]]; return }
        let n = b.count
        let at = Int(rng.next() % UInt64(n))
        switch rng.next() % 11 {
        case 0: b[at] ^= UInt8(1 << (rng.next() % 8))
        case 1: b[at] = interesting[Int(rng.next() % UInt64(interesting.count))]
        case 2: b[at] = UInt8(truncatingIfNeeded: rng.next())
        case 3: b.removeSubrange(at..<min(n, at + 1 + Int(rng.next() % 64)))
        case 4:
            let len = min(n - at, 1 + Int(rng.next() % 256))
            b.insert(contentsOf: b[at..<(at + len)], at: Int(rng.next() % UInt64(n)))
        case 5: b.removeSubrange(at..<n)
        case 6:
            let other = corpus[Int(rng.next() % UInt64(corpus.count))]
            guard !other.isEmpty else { return }
            let from = Int(rng.next() % UInt64(other.count))
            let len = min(other.count - from, 1 + Int(rng.next() % 512))
            b.replaceSubrange(at..<min(n, at + len), with: other[from..<(from + len)])
        case 7: b.insert(contentsOf: Array(repeating: UInt8(ascii: "9"), count: 1 + Int(rng.next() % 40)), at: at)
        case 8:
            // Swap two lines.
            guard let l1 = lineRange(b, around: at), let l2 = lineRange(b, around: Int(rng.next() % UInt64(n))), l1.upperBound <= l2.lowerBound else { return }
            let second = Array(b[l2]), first = Array(b[l1])
            b.replaceSubrange(l2, with: first)
            b.replaceSubrange(l1, with: second)
        case 9:
            // Delete or duplicate a whole line.
            guard let l = lineRange(b, around: at) else { return }
            if rng.next() % 2 == 0 { b.removeSubrange(l) } else { b.insert(contentsOf: Array(b[l]), at: l.lowerBound) }
        default:
            // Overwrite a little-endian 32-bit value with an extreme one (binary formats' lengths).
            let extremes: [UInt32] = [0, 1, 0x7FFF_FFFF, 0xFFFF_FFFF, 0x8000_0000, 65_535, 1_000_000_000]
            let v = extremes[Int(rng.next() % UInt64(extremes.count))]
            for k in 0..<4 where at + k < n { b[at + k] = UInt8(truncatingIfNeeded: v >> (8 * UInt32(k))) }
        }
    }

    static func lineRange(_ b: [UInt8], around i: Int) -> Range<Int>? {
        guard i < b.count else { return nil }
        var s = i, e = i
        while s > 0, b[s - 1] != 0x0A { s -= 1 }
        while e < b.count, b[e] != 0x0A { e += 1 }
        return s..<min(b.count, e + 1)
    }
}
