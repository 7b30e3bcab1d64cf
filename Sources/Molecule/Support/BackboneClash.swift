/// The builder's clash rule, kept here so that a designed protein and a morph's frames are judged
/// alike: two backbone atoms (N, CA, C, O and CB) of residues at least two apart in a chain clash
/// when they are nearer than 3.0 Å, or 2.6 Å for an N and an O (the short end of a backbone
/// hydrogen bond).
public enum BackboneClash {
    public static let atomNames: Set<String> = ["N", "CA", "C", "O", "CB"]
    /// Residues nearer than this in a chain never clash (their atoms are bonded or one bond apart).
    public static let residueSeparation = 2

    @inline(__always) public static func minimumDistance(nitrogenAndOxygen: Bool) -> Double { nitrogenAndOxygen ? 2.6 : 3.0 }

    /// Clashing atom pairs among the backbone atoms of `model`, each counted once.
    public static func count(in model: Model) -> Int {
        let residueOf = model.residueIndexOfAtoms(), chainOf = model.chainIndexOfResidues()
        let atoms = (0..<model.atoms.count).filter { atomNames.contains(model.atoms.names[$0]) }
        guard !atoms.isEmpty else { return 0 }
        let points = atoms.map { model.atoms.positions[$0] }
        let grid = SpatialGrid(points: points, cellSize: 3.0)
        var clashes = 0
        for (i, a) in atoms.enumerated() {
            let ra = Int(residueOf[a])
            grid.forEachCandidate(near: points[i]) { j in
                guard j > i else { return true }
                let b = atoms[j], rb = Int(residueOf[b])
                guard chainOf[ra] != chainOf[rb] || abs(ra - rb) >= residueSeparation else { return true }
                let names = (model.atoms.names[a], model.atoms.names[b])
                let limit = minimumDistance(nitrogenAndOxygen: names == ("N", "O") || names == ("O", "N"))
                let d = points[i] - points[j]
                if Double((d * d).sum()) < limit * limit { clashes += 1 }
                return true
            }
        }
        return clashes
    }
}
