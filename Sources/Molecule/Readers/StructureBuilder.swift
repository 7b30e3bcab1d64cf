/// Packs an identifier of up to 8 ASCII bytes into an integer so readers can compare chain and
/// residue ids per atom without building Strings; longer ids are hashed (top bit set).
struct ShortKey: Hashable, Sendable {
    let value: UInt64

    static let empty = ShortKey(value: 0)
    init(value: UInt64) { self.value = value }

    @inline(__always)
    init(_ b: UnsafeBufferPointer<UInt8>) {
        if b.count <= 8 {
            var v: UInt64 = 0
            for x in b { v = v << 8 | UInt64(x) }
            value = v  // ASCII bytes are never 0, so the length is implied
        } else {
            var h: UInt64 = 0xcbf29ce484222325
            for x in b { h = (h ^ UInt64(x)) &* 0x100000001b3 }
            value = h | 1 << 63
        }
    }
}

/// Collects atoms in file order and turns them into models → chains → residues. Atoms of a chain
/// that reappears later in a model (ligands and water after TER) are merged into that chain, as
/// gemmi and most viewers do, so a chain's residues and atoms stay contiguous; hydrogens written
/// apart from their residue (Open Babel writes every added hydrogen after the last heavy atom) join
/// it.
struct StructureBuilder {
    private(set) var models: [Model] = []
    private var model = Model(number: 1)
    private var inModel = false

    // Per-residue bookkeeping of the model being built.
    private var residueChainKeys: [ShortKey] = []
    private var chainNames: [ShortKey: String] = [:]
    private var chainOrder: [ShortKey] = []
    private var labelAsyms: [String] = []
    private var keepsLabelAsym = false

    // The residue currently being filled.
    private var curChain = ShortKey.empty
    private var curResName = ShortKey.empty
    private var curNumber: Int32 = .min
    private var curICode: UInt8 = 0
    private var curLabelAsym = ShortKey.empty
    private var hasResidue = false

    // What may be read, and why reading must stop (a limit passed); readers check it per atom.
    private let limits: ReadLimits
    private var atomsRead = 0
    private(set) var refusal: String?

    init(reserveAtoms: Int = 0, keepsLabelAsym: Bool = false, limits: ReadLimits = .standard) {
        self.limits = limits
        model.atoms.reserveCapacity(min(reserveAtoms, limits.maxAtoms))
        self.keepsLabelAsym = keepsLabelAsym
    }

    mutating func beginModel(_ number: Int) {
        if inModel { endModel() }
        if refusal == nil { refusal = limits.refusesModel(after: models.count) }
        let reserve = models.last?.atoms.count ?? model.atoms.names.capacity
        model = Model(number: number)
        model.atoms.reserveCapacity(reserve)
        inModel = true
    }

    /// Starts a new residue when the atom's chain, residue name, number, insertion code or
    /// (mmCIF) label_asym_id differ from the previous atom's.
    @inline(__always)
    mutating func residue(chain: UnsafeBufferPointer<UInt8>, name: UnsafeBufferPointer<UInt8>, number: Int32,
                          insertionCode: UInt8, labelAsym: UnsafeBufferPointer<UInt8>? = nil, sequenceIndex: Int32? = nil) {
        residue(chainKey: ShortKey(chain), chainName: String(decoding: chain, as: UTF8.self),
                nameKey: ShortKey(name), name: String(decoding: name, as: UTF8.self), number: number, insertionCode: insertionCode,
                labelAsymKey: labelAsym.map(ShortKey.init) ?? curLabelAsym,
                labelAsym: labelAsym.map { String(decoding: $0, as: UTF8.self) } ?? "", sequenceIndex: sequenceIndex)
    }

    /// The same with identifiers already packed; the names are only built for a new residue.
    @inline(__always)
    mutating func residue(chainKey: ShortKey, chainName: @autoclosure () -> String, nameKey: ShortKey, name: @autoclosure () -> String,
                          number: Int32, insertionCode: UInt8, labelAsymKey: ShortKey, labelAsym: @autoclosure () -> String,
                          sequenceIndex: Int32?) {
        if !inModel { beginModel(models.count + 1) }
        if hasResidue, chainKey == curChain, nameKey == curResName, number == curNumber,
           insertionCode == curICode, labelAsymKey == curLabelAsym { return }
        closeResidue()
        curChain = chainKey; curResName = nameKey; curNumber = number; curICode = insertionCode; curLabelAsym = labelAsymKey
        if chainNames[chainKey] == nil {
            chainNames[chainKey] = chainName()
            chainOrder.append(chainKey)
        }
        residueChainKeys.append(chainKey)
        if keepsLabelAsym { labelAsyms.append(labelAsym()) }
        let start = Int32(model.atoms.count)
        model.residues.append(Residue(name: name(), number: number, insertionCode: insertionCode, sequenceIndex: sequenceIndex,
                                      atomStart: start, atomEnd: start))
        hasResidue = true
    }

    /// Forces the next atom to start a residue (after TER, or at a model boundary).
    mutating func breakResidue() { closeResidue(); hasResidue = false }

    @inline(__always)
    mutating func addAtom(_ atom: Atom) {
        model.atoms.append(atom)
        atomsRead += 1
        if atomsRead > limits.maxAtoms, refusal == nil { refusal = limits.refusesAtoms(after: atomsRead - 1) }
    }

    private mutating func closeResidue() {
        if hasResidue, !model.residues.isEmpty {
            model.residues[model.residues.count - 1].atomEnd = Int32(model.atoms.count)
        }
    }

    mutating func endModel() {
        guard inModel else { return }
        closeResidue()
        hasResidue = false
        joinStrayHydrogens()
        finishChains()
        models.append(model)
        model = Model(number: models.count + 1)
        residueChainKeys = []; chainNames = [:]; chainOrder = []; labelAsyms = []
        inModel = false
    }

    /// Groups residues into chains by chain id, in order of first appearance.
    private mutating func finishChains() {
        // Drop residues that received no atoms (cannot normally happen, but keeps invariants).
        let n = model.residues.count
        var contiguous = true
        var seen: Set<ShortKey> = []
        var prev: ShortKey? = nil
        for k in residueChainKeys {
            if k != prev { if seen.contains(k) { contiguous = false; break }; seen.insert(k); prev = k }
        }
        if !contiguous {
            var byChain: [ShortKey: [Int]] = [:]
            for (r, k) in residueChainKeys.enumerated() { byChain[k, default: []].append(r) }
            rewrite(residues: chainOrder.flatMap { byChain[$0] ?? [] })
        }
        if keepsLabelAsym { model.residueLabelAsym = labelAsyms }
        // Build chain ranges.
        var chains: [Chain] = []
        var r = 0
        while r < n {
            let k = residueChainKeys[r]
            var e = r + 1
            while e < n, residueChainKeys[e] == k { e += 1 }
            chains.append(Chain(id: chainNames[k] ?? "", labelID: keepsLabelAsym ? model.residueLabelAsym[r] : (chainNames[k] ?? ""),
                                residueStart: Int32(r), residueEnd: Int32(e)))
            r = e
        }
        model.chains = chains
    }

    /// A residue of hydrogens only whose chain, name, number and insertion code an earlier residue
    /// has is that residue's: its atoms move there. (A residue number that comes again with heavy
    /// atoms — GROMACS's wrapped numbering, a second copy — stays a residue of its own.)
    private mutating func joinStrayHydrogens() {
        struct Key: Hashable { let chain: ShortKey, name: String, number: Int32, icode: UInt8 }
        func key(_ r: Int) -> Key {
            let res = model.residues[r]
            return Key(chain: residueChainKeys[r], name: res.name, number: res.number, icode: res.insertionCode)
        }
        let residues = model.residues, elements = model.atoms.elements
        func onlyHydrogens(_ r: Int) -> Bool {
            !residues[r].atomRange.isEmpty && residues[r].atomRange.allSatisfy { elements[$0].atomicNumber == 1 }
        }
        // Most files have none: then no residue's key is built.
        guard residues.indices.contains(where: onlyHydrogens) else { return }
        var first: [Key: Int] = [:]
        var strays = [[Int]](repeating: [], count: residues.count)
        var kept: [Int] = []
        for r in residues.indices {
            if onlyHydrogens(r), let owner = first[key(r)] { strays[owner].append(r); continue }
            if first[key(r)] == nil { first[key(r)] = r }
            kept.append(r)
        }
        guard kept.count < residues.count else { return }
        rewrite(residues: kept, joining: strays)
    }

    /// Rewrites residues (and their atoms, chain keys and label_asym_ids) in the given order, each
    /// followed by the atoms of the residues `joining` gives it.
    private mutating func rewrite(residues order: [Int], joining: [[Int]] = []) {
        let old = model
        var atoms = AtomTable()
        atoms.reserveCapacity(old.atoms.count)
        var residues: [Residue] = []
        residues.reserveCapacity(order.count)
        var keys: [ShortKey] = [], asyms: [String] = []
        keys.reserveCapacity(order.count)
        for r in order {
            var res = old.residues[r]
            let start = Int32(atoms.count)
            atoms.append(contentsOf: old.atoms, range: res.atomRange)
            for s in joining.isEmpty ? [] : joining[r] { atoms.append(contentsOf: old.atoms, range: old.residues[s].atomRange) }
            res.atomStart = start
            res.atomEnd = Int32(atoms.count)
            residues.append(res)
            keys.append(residueChainKeys[r])
            if keepsLabelAsym { asyms.append(labelAsyms[r]) }
        }
        model.atoms = atoms
        model.residues = residues
        residueChainKeys = keys
        if keepsLabelAsym { labelAsyms = asyms }
    }

    mutating func finish() -> [Model] {
        if inModel { endModel() }
        return models
    }
}
