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
        // Where each residue is, by chain and number; alternatives at one position keep the first.
        var position: [ResidueRef: Int] = [:]
        position.reserveCapacity(residues.count)
        for chain in chains {
            for r in chain.residueRange {
                let key = ResidueRef(chainID: chain.sourceID ?? chain.id, number: residues[r].number, insertionCode: residues[r].insertionCode)
                if position[key] == nil { position[key] = r }
            }
        }
        var copies: [String: [Int]] = [:]  // assembly copies of one source chain
        for (c, chain) in chains.enumerated() { copies[chain.sourceID ?? chain.id, default: []].append(c) }
        // Strands first, so helices win where a file lets them overlap.
        let ordered = records.filter { if case .strand = $0.kind { true } else { false } }
            + records.filter { if case .helix = $0.kind { true } else { false } }
        for record in ordered {
            guard record.start.chainID == record.end.chainID, let s = position[record.start], let e = position[record.end], s <= e,
                  let firstCopy = copies[record.start.chainID]?.first else { continue }
            for c in copies[record.start.chainID] ?? [] {
                // The same range in every copy of the chain, shifted by the copy's offset.
                let offset = Int(chains[c].residueStart) - Int(chains[firstCopy].residueStart)
                for r in (s + offset)...(e + offset) where chains[c].residueRange.contains(r) {
                    let res = residues[r]
                    // Copies may hold fewer residues than the first (other asym ids): match by number.
                    guard res.number == residues[r - offset].number, res.insertionCode == residues[r - offset].insertionCode else { continue }
                    if res.kind == .aminoAcid || res.kind == .nucleotide || !atoms.isHetero[res.atomRange.lowerBound] { codes[r] = record.code }
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
