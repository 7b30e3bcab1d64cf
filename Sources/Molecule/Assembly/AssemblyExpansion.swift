extension Structure {
    /// The biological assembly `id` built from model `modelIndex`: for every generator, every
    /// operator sequence is applied to the chains (residues of the listed `label_asym_id`s, or author
    /// chains for PDB files) it names. Copies are named "A-2" (chain A under operator 2); a single
    /// identity copy keeps the original names.
    public func expandingAssembly(_ id: String, modelIndex: Int = 0, maximumAtoms: Int = 100_000_000) throws -> Structure {
        let assembly = try assembly(id)
        guard modelIndex < models.count else { throw AssemblyError(message: "the file has no model \(modelIndex + 1)") }
        let source = models[modelIndex]
        var out = Model(number: source.number)
        let copies = assembly.generators.reduce(0) { $0 + $1.operatorSequences.count }
        let hasLabels = source.residueLabelAsym.count == source.residues.count

        let chainOfResidue = source.chainIndexOfResidues()
        // Allocate once (a million atoms for a 60-mer virus).
        var reserve = 0
        for g in assembly.generators {
            let set = Set(g.chainIDs)
            var n = 0
            for (r, res) in source.residues.enumerated() where residueSelected(r, chainOfResidue, set, g, source, hasLabels) { n += res.atomCount }
            reserve += n * g.operatorSequences.count
        }
        guard reserve <= maximumAtoms else {
            throw AssemblyError(message: "assembly \(id) would have \(reserve) atoms, more than the limit of \(maximumAtoms)")
        }
        out.atoms.reserveCapacity(reserve)
        for g in assembly.generators {
            let set = Set(g.chainIDs)
            for sequence in g.operatorSequences {
                let op = try composedOperator(sequence)
                let r = op.rotation.map(Float.init)
                let t = SIMD3<Float>(Float(op.translation.x), Float(op.translation.y), Float(op.translation.z))
                let suffix = copies > 1 || !op.isIdentity ? "-" + sequence.joined(separator: "x") : ""
                for chain in source.chains {
                    let residueStart = out.residues.count
                    let atomStart = out.atoms.count
                    let selected = chain.residueRange.filter { residueSelected($0, chainOfResidue, set, g, source, hasLabels) }
                    guard let first = selected.first, let last = selected.last else { continue }
                    if selected.count == chain.residueCount {
                        // The whole chain: copy its atoms in one go (residues of a chain are contiguous).
                        let from = Int(source.residues[first].atomStart), to = Int(source.residues[last].atomEnd)
                        out.atoms.append(contentsOf: source.atoms, range: from..<to)
                        let shift = Int32(atomStart - from)
                        for r in selected {
                            var res = source.residues[r]
                            res.atomStart += shift
                            res.atomEnd += shift
                            out.residues.append(res)
                        }
                    } else {
                        for r in selected {
                            var res = source.residues[r]
                            let start = out.atoms.count
                            out.atoms.append(contentsOf: source.atoms, range: res.atomRange)
                            res.atomStart = Int32(start)
                            res.atomEnd = Int32(out.atoms.count)
                            out.residues.append(res)
                        }
                    }
                    if hasLabels { for r in selected { out.residueLabelAsym.append(source.residueLabelAsym[r]) } }
                    out.atoms.positions.withUnsafeMutableBufferPointer { p in
                        for a in atomStart..<p.count {
                            let v = p[a]
                            p[a] = SIMD3(r[0] * v.x + r[1] * v.y + r[2] * v.z + t.x,
                                         r[3] * v.x + r[4] * v.y + r[5] * v.z + t.y,
                                         r[6] * v.x + r[7] * v.y + r[8] * v.z + t.z)
                        }
                    }
                    var copy = chain
                    copy.id = chain.id + suffix
                    copy.sourceID = chain.id
                    copy.residueStart = Int32(residueStart)
                    copy.residueEnd = Int32(out.residues.count)
                    out.chains.append(copy)
                }
            }
        }
        var s = self
        s.models = [out]
        return s
    }

    private func residueSelected(_ r: Int, _ chainOf: [Int32], _ set: Set<String>, _ g: AssemblyGenerator,
                                 _ model: Model, _ hasLabels: Bool) -> Bool {
        if !g.chainIDsAreAuthor, hasLabels { return set.contains(model.residueLabelAsym[r]) }
        return set.contains(model.chains[Int(chainOf[r])].id)
    }
}

extension Structure {
    /// The assembly `id`, or an error that names the assemblies the file defines.
    public func assembly(_ id: String) throws(AssemblyError) -> Assembly {
        guard let assembly = assemblies.first(where: { $0.id == id }) else {
            let known = assemblies.map(\.id)
            throw AssemblyError(message: known.isEmpty ? "the file defines no assemblies"
                                : "no assembly '\(id)'; the file defines \(known.joined(separator: ", "))")
        }
        return assembly
    }

    /// One operator sequence of a generator as a single operator (applied right to left, as the
    /// expression `(1)(2)` means operator 1 after operator 2).
    public func composedOperator(_ sequence: [String]) throws(AssemblyError) -> SymmetryOperator {
        var op = SymmetryOperator.identity(id: "")
        for name in sequence.reversed() {
            guard let next = operators[name] else { throw AssemblyError(message: "operator '\(name)' is not defined") }
            op = next.composed(after: op)
        }
        return op
    }
}

public struct AssemblyError: Error, CustomStringConvertible, Sendable {
    public var message: String
    public var description: String { message }
}
