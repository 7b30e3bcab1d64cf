extension Structure {
    /// One code per residue of model `modelIndex`: from the file's HELIX/SHEET (struct_conf,
    /// struct_sheet_range) records when it has any, otherwise (or when `compute` is true) by DSSP.
    public func secondaryStructure(modelIndex: Int = 0, compute: Bool = false) -> [SecondaryStructureCode] {
        guard modelIndex < models.count else { return [] }
        let model = models[modelIndex]
        if compute || secondaryStructureRecords.isEmpty { return model.computeSecondaryStructure() }
        return model.secondaryStructure(from: secondaryStructureRecords)
    }

    /// Whether `secondaryStructure` would use the file's records rather than compute them.
    public var hasSecondaryStructureRecords: Bool { !secondaryStructureRecords.isEmpty }
}

extension Model {
    /// Marks the residues between each record's first and last residue (inclusive, by position in
    /// the chain). Helices win over strands where a file lets them overlap.
    public func secondaryStructure(from records: [SecondaryStructureRecord]) -> [SecondaryStructureCode] {
        var codes = [SecondaryStructureCode](repeating: .coil, count: residues.count)
        var position: [ResidueRef: Int] = [:]
        var chainsByID: [String: [Int]] = [:]
        for (c, chain) in chains.enumerated() {
            chainsByID[chain.sourceID ?? chain.id, default: []].append(c)
        }
        let sorted = records.sorted { a, b in
            if case .strand = a.kind, case .helix = b.kind { return true }
            return false
        }
        for record in sorted {
            guard record.start.chainID == record.end.chainID, let chainIndices = chainsByID[record.start.chainID] else { continue }
            for c in chainIndices {
                let range = chains[c].residueRange
                position.removeAll(keepingCapacity: true)
                var start: Int? = nil, end: Int? = nil
                for r in range {
                    let res = residues[r]
                    if start == nil, res.number == record.start.number, res.insertionCode == record.start.insertionCode { start = r }
                    if res.number == record.end.number, res.insertionCode == record.end.insertionCode { end = r }
                }
                guard let s = start, let e = end, s <= e else { continue }
                for r in s...e where residues[r].kind == .aminoAcid || residues[r].kind == .nucleotide || !atoms.isHetero[residues[r].atomRange.lowerBound] {
                    codes[r] = record.code
                }
            }
        }
        return codes
    }

    /// DSSP over the amino-acid residues that have N, CA, C and O (first alternate location).
    public func computeSecondaryStructure() -> [SecondaryStructureCode] {
        var codes = [SecondaryStructureCode](repeating: .coil, count: residues.count)
        let (backbone, indices) = backboneResidues()
        guard !backbone.isEmpty else { return codes }
        let assigned = DSSP.assign(backbone)
        for (k, r) in indices.enumerated() where k < assigned.count { codes[r] = assigned[k] }
        // Alternative residues at one position (microheterogeneity) share the first one's code.
        for chain in chains {
            var r = chain.residueRange.lowerBound + 1
            while r < chain.residueRange.upperBound {
                if residues[r].number == residues[r - 1].number, residues[r].insertionCode == residues[r - 1].insertionCode {
                    codes[r] = codes[r - 1]
                }
                r += 1
            }
        }
        return codes
    }

    /// Backbone atoms of protein residues for DSSP, with the residue index each came from.
    public func backboneResidues() -> ([BackboneResidue], [Int]) {
        var out: [BackboneResidue] = []
        var indices: [Int] = []
        out.reserveCapacity(residues.count)
        for (c, chain) in chains.enumerated() {
            for r in chain.residueRange {
                let res = residues[r]
                guard res.kind == .aminoAcid || res.atomCount >= 4 else { continue }
                // Of alternative residues at one position (microheterogeneity) only the first takes part.
                if r > chain.residueRange.lowerBound, residues[r - 1].number == res.number,
                   residues[r - 1].insertionCode == res.insertionCode { continue }
                var n: SIMD3<Float>?, ca: SIMD3<Float>?, cc: SIMD3<Float>?, o: SIMD3<Float>?
                for a in res.atomRange {
                    switch atoms.names[a] {
                    case "N": if n == nil { n = atoms.positions[a] }
                    case "CA": if ca == nil, atoms.elements[a] == .carbon { ca = atoms.positions[a] }
                    case "C": if cc == nil { cc = atoms.positions[a] }
                    case "O": if o == nil { o = atoms.positions[a] }
                    default: break
                    }
                }
                guard let n, let ca, let cc, let o else { continue }
                out.append(BackboneResidue(n: n, ca: ca, c: cc, o: o, isProline: res.name == "PRO", chainIndex: Int32(c)))
                indices.append(r)
            }
        }
        return (out, indices)
    }
}
