/// Biological assemblies from REMARK 350.
extension PDBParser {
    /// REMARK 350 BIOMOLECULE blocks: "APPLY THE FOLLOWING TO CHAINS: A, B" then BIOMT1-3 rows.
    mutating func parseRemark350() -> [Assembly] {
        var assemblies: [Assembly] = []
        var chains: [String] = []
        var rows: [Int: [Double]] = [:]
        var ops: [SymmetryOperator] = []
        var readingChains = false
        func flushGenerator() {
            guard !assemblies.isEmpty, !ops.isEmpty else { return }
            let ids = ops.map { op -> String in
                let id = "\(assemblies[assemblies.count - 1].id)-\(op.id)"
                structure.operators[id] = SymmetryOperator(id: id, rotation: op.rotation, translation: op.translation)
                return id
            }
            assemblies[assemblies.count - 1].generators.append(AssemblyGenerator(
                operatorExpression: ops.map(\.id).joined(separator: ","), operatorSequences: ids.map { [$0] },
                chainIDs: chains, chainIDsAreAuthor: true))
            ops = []
        }
        for text in remark350 {
            if text.hasPrefix("BIOMOLECULE:") {
                flushGenerator()
                assemblies.append(Assembly(id: text.dropFirst("BIOMOLECULE:".count).trimming(" ")))
                chains = []; readingChains = false
            } else if text.hasPrefix("APPLY THE FOLLOWING TO CHAINS:") {
                flushGenerator()
                chains = PDBParser.chainList(String(text.dropFirst("APPLY THE FOLLOWING TO CHAINS:".count)))
                readingChains = true
            } else if readingChains, text.hasPrefix("AND CHAINS:") {
                chains += PDBParser.chainList(String(text.dropFirst("AND CHAINS:".count)))
            } else if text.hasPrefix("BIOMT") {
                readingChains = false
                let parts = text.split(separator: " ")
                guard parts.count >= 6, let row = Int(parts[0].dropFirst(5)), (1...3).contains(row) else { continue }
                let values = parts[2...5].compactMap { Double($0) }
                guard values.count == 4 else { continue }
                rows[row] = values
                if row == 3, let r1 = rows[1], let r2 = rows[2] {
                    ops.append(SymmetryOperator(id: String(parts[1]), rotation: [r1[0], r1[1], r1[2], r2[0], r2[1], r2[2], values[0], values[1], values[2]],
                                                translation: SIMD3(r1[3], r2[3], values[3])))
                    rows = [:]
                }
            } else if text.hasPrefix("AUTHOR DETERMINED") || text.hasPrefix("SOFTWARE DETERMINED") {
                if !assemblies.isEmpty, assemblies[assemblies.count - 1].details.isEmpty {
                    assemblies[assemblies.count - 1].details = text.collapsingSpaces
                }
            }
        }
        flushGenerator()
        return assemblies.filter { !$0.generators.isEmpty }
    }

    static func chainList(_ s: String) -> [String] {
        s.split(separator: ",").map { $0.trimming(" ") }.filter { !$0.isEmpty }
    }
}
