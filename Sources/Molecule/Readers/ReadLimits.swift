/// How much of a file the readers build: models (frames, records) and atoms in all of them
/// together. Atoms cost about 50 bytes each in memory and every model some more, so these bound
/// what reading a file can hold, whatever the file's size after inflating: 99 MB of one-atom XYZ
/// frames would otherwise be nine million models. A file past a limit is refused with an error
/// naming the limit and where it was passed, not cut short in silence.
public struct ReadLimits: Sendable, Equatable {
    /// Models (NMR models, XYZ frames, SDF records) in one file. NMR ensembles in the PDB hold tens
    /// of models; a longer trajectory is refused (split it, or keep every n-th frame).
    public var maxModels: Int
    /// Atoms in all models together: the largest PDB entries (ribosomes, virus capsids, 3J3Q's
    /// 2.4 million atoms) fit, and the atom tables stay near 250 MB.
    public var maxAtoms: Int

    public init(maxModels: Int = 1_000, maxAtoms: Int = 5_000_000) {
        self.maxModels = maxModels; self.maxAtoms = maxAtoms
    }

    public static let standard = ReadLimits()

    /// Why one more model may not be read, when `models` are already read; nil when it may.
    func refusesModel(after models: Int) -> String? {
        models < maxModels ? nil : "more than \(maxModels) models (frames or records) in one file, the most read; split the file"
    }

    /// Why `more` atoms may not be added to `atoms` already read; nil when they may.
    func refusesAtoms(_ more: Int = 1, after atoms: Int) -> String? {
        more <= maxAtoms - atoms ? nil : "more than \(maxAtoms) atoms in all models together, the most read"
    }
}
