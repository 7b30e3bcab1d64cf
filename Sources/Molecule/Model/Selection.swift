/// A small atom-selection language.
///
/// Terms, joined by commas (union):
/// - `all`, `protein`, `nucleic`, `ligands` (residues that are neither polymer nor water),
///   `water`, `hydrogens` (keywords are case-insensitive);
/// - `A` — a chain, by its author id (case-sensitive; an assembly copy also answers to the id of
///   the chain it copies);
/// - `A:42` or `A:42B` — one residue of a chain (number, optional insertion code);
/// - `A:10-50`, `A:10A-50`, `A:-5-20` — an inclusive residue range. A start without an insertion
///   code begins at that number's first residue; an end without one includes that number's
///   inserted residues (50A, 50B…).
/// Any term may be preceded by `not ` to take its complement, e.g. `not water`; `not` binds to
/// that one term, so `A,not water` is chain A together with everything that is not water.
///
/// A chain that the model lacks is not an error: `matchesNothing(in:structure:)` and
/// `unknownChains(in:)` let the caller say so.
public struct Selection: Sendable, Equatable {
    public enum Keyword: String, Sendable, Equatable, CaseIterable {
        case all, protein, nucleic, ligands, water, hydrogens
    }

    /// A residue position in a chain: number and insertion code (0 = none).
    public struct ResiduePosition: Sendable, Equatable, Comparable {
        public var number: Int32
        public var insertionCode: UInt8
        public init(number: Int32, insertionCode: UInt8 = 0) { self.number = number; self.insertionCode = insertionCode }
        public static func < (a: Self, b: Self) -> Bool { (a.number, a.insertionCode) < (b.number, b.insertionCode) }
    }

    public enum Predicate: Sendable, Equatable {
        case keyword(Keyword)
        case chain(String)
        /// Inclusive bounds.
        case residues(chain: String, from: ResiduePosition, through: ResiduePosition)
    }

    public struct Term: Sendable, Equatable {
        public var negated: Bool
        public var predicate: Predicate
    }

    /// The terms, in the order written; the selection is their union.
    public var terms: [Term]

    /// Everything.
    public static let all = Selection(terms: [Term(negated: false, predicate: .keyword(.all))])

    public init(terms: [Term]) { self.terms = terms }

    public init(parsing text: String) throws(SelectionError) {
        var terms: [Term] = []
        for raw in text.split(separator: ",", omittingEmptySubsequences: false) {
            var token = Substring(raw.drop(while: { $0 == " " }))
            while token.last == " " { token = token.dropLast() }
            guard !token.isEmpty else {
                throw SelectionError(token: String(raw), reason: text.isEmpty ? "empty selection" : "empty term")
            }
            if token.lowercased() == "not" { throw SelectionError(token: String(token), reason: "nothing after 'not'") }
            var negated = false
            if token.count > 4, token.prefix(4).lowercased() == "not " {
                negated = true
                token = Substring(token.dropFirst(4).drop(while: { $0 == " " }))
            }
            terms.append(Term(negated: negated, predicate: try Self.predicate(token)))
        }
        self.terms = terms
    }

    private static func isIDCharacter(_ c: Character) -> Bool {
        c.isASCII && (c.isLetter || c.isNumber || c == "_" || c == "-" || c == "'" || c == "*")
    }

    private static func predicate(_ token: Substring) throws(SelectionError) -> Predicate {
        if let k = Keyword(rawValue: token.lowercased()) { return .keyword(k) }
        // Plural and singular spellings people type.
        switch token.lowercased() {
        case "ligand": return .keyword(.ligands)
        case "waters", "solvent": return .keyword(.water)
        case "hydrogen": return .keyword(.hydrogens)
        case "nucleic-acid", "dna", "rna": return .keyword(.nucleic)
        default: break
        }
        let parts = token.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        let chain = String(parts[0])
        guard !chain.isEmpty, chain.allSatisfy(isIDCharacter), !chain.contains(" ") else {
            throw SelectionError(token: String(token), reason: "not a keyword or chain id")
        }
        guard parts.count == 2 else { return .chain(chain) }
        let range = parts[1]
        guard !range.isEmpty else { throw SelectionError(token: String(token), reason: "no residue after ':'") }
        // Number: optional leading '-', digits, optional one-letter insertion code.
        var rest = range[...]
        func position() -> ResiduePosition? {
            var s = rest
            var negative = false
            if s.first == "-" { negative = true; s = s.dropFirst() }
            let digits = s.prefix(while: { $0.isASCII && $0.isNumber })
            guard !digits.isEmpty, digits.count <= 9, let value = Int32(digits) else { return nil }
            s = s.dropFirst(digits.count)
            var code: UInt8 = 0
            if let c = s.first, c.isASCII, c.isLetter, let byte = c.asciiValue {
                code = byte
                s = s.dropFirst()
            }
            rest = s
            return ResiduePosition(number: negative ? -value : value, insertionCode: code)
        }
        guard let start = position() else {
            throw SelectionError(token: String(token), reason: "expected a residue number after ':'")
        }
        if rest.isEmpty { return .residues(chain: chain, from: start, through: start) }
        guard rest.first == "-" else {
            throw SelectionError(token: String(token), reason: "unexpected '\(rest)' after the residue number")
        }
        rest = rest.dropFirst()
        guard var end = position(), rest.isEmpty else {
            throw SelectionError(token: String(token), reason: "expected a residue range such as 10-50")
        }
        if end.insertionCode == 0 { end.insertionCode = 0xFF }  // through every insertion at that number
        guard start <= end else {
            throw SelectionError(token: String(token), reason: "the range's start is after its end")
        }
        return .residues(chain: chain, from: start, through: end)
    }

    /// Whether each atom of `model` is selected.
    public func atoms(in model: Model, structure: Structure) -> [Bool] {
        let n = model.atoms.count
        var out = [Bool](repeating: false, count: n)
        guard !terms.isEmpty else { return out }
        var mask = [Bool](repeating: false, count: n)
        for term in terms {
            if term.predicate == .keyword(.all) {
                if !term.negated { return [Bool](repeating: true, count: n) }
                continue
            }
            for i in 0..<n { mask[i] = false }
            mark(term.predicate, model: model, into: &mask)
            for i in 0..<n where mask[i] != term.negated { out[i] = true }
        }
        return out
    }

    private func mark(_ predicate: Predicate, model: Model, into mask: inout [Bool]) {
        func markResidue(_ res: Residue) { for i in res.atomRange { mask[i] = true } }
        switch predicate {
        case .keyword(let k):
            switch k {
            case .all:
                for i in mask.indices { mask[i] = true }
            case .hydrogens:
                for (i, e) in model.atoms.elements.enumerated() where e.isHydrogen { mask[i] = true }
            case .protein, .nucleic, .water, .ligands:
                for res in model.residues {
                    let kind = res.kind
                    let hit: Bool
                    switch k {
                    case .protein: hit = kind == .aminoAcid
                    case .nucleic: hit = kind == .nucleotide
                    case .water: hit = kind == .water
                    default: hit = kind == .other
                    }
                    if hit { markResidue(res) }
                }
            }
        case .chain(let id):
            for chain in model.chains where chain.id == id || chain.sourceID == id {
                for r in chain.residueRange { markResidue(model.residues[r]) }
            }
        case .residues(let id, let from, let through):
            for chain in model.chains where chain.id == id || chain.sourceID == id {
                for r in chain.residueRange {
                    let res = model.residues[r]
                    let p = ResiduePosition(number: res.number, insertionCode: res.insertionCode)
                    if from <= p && p <= through { markResidue(res) }
                }
            }
        }
    }

    /// Whether the selection picks no atom of `model`.
    public func matchesNothing(in model: Model, structure: Structure) -> Bool {
        !atoms(in: model, structure: structure).contains(true)
    }

    /// Chain ids the selection names that `model` has no chain (or chain copy) for, in order.
    public func unknownChains(in model: Model) -> [String] {
        var known = Set<String>()
        for chain in model.chains { known.insert(chain.id); if let s = chain.sourceID { known.insert(s) } }
        var out: [String] = []
        for term in terms {
            let id: String
            switch term.predicate {
            case .chain(let c), .residues(let c, _, _): id = c
            case .keyword: continue
            }
            if !known.contains(id) && !out.contains(id) { out.append(id) }
        }
        return out
    }
}

/// A selection that does not parse: the offending term and what is accepted.
public struct SelectionError: Error, Sendable, Equatable, CustomStringConvertible {
    public var token: String
    public var reason: String
    public init(token: String, reason: String) { self.token = token; self.reason = reason }

    public static let accepted = "accepted: all, protein, nucleic, ligands, water, hydrogens, a chain id (A), "
        + "a residue (A:42, A:42B), a residue range (A:10-50, A:10A-50B), terms joined by commas, each optionally "
        + "preceded by 'not '"

    public var description: String { "bad selection term '\(token)': \(reason); \(Self.accepted)" }
}
