/// What people type to fetch an entry: a PDB ID, classic (`4HHB`) or extended (`pdb_00004hhb`),
/// or a UniProt accession for an AlphaFold DB model (`P69905`, `AF-P69905-F1`).
public enum EntryID: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// Four characters, upper case: a digit 1–9, then three letters or digits.
    case pdb(String)
    /// `pdb_` and eight characters, lower case (`pdb_00004hhb`).
    case extendedPDB(String)
    /// A UniProt accession, upper case.
    case uniProt(String)

    public static let acceptedForms = "a PDB ID such as 4HHB, an extended PDB ID such as pdb_00004hhb, "
        + "or a UniProt accession such as P69905 (or AF-P69905-F1) for an AlphaFold DB model"

    /// Parses `text`, or nil when it is none of the accepted forms.
    public init?(_ text: String) {
        let t = text.trimmingWhitespace
        let upper = t.uppercased()
        if Self.isClassicPDB(upper) {
            self = .pdb(upper)
        } else if upper.count == 12, upper.hasPrefix("PDB_"), upper.dropFirst(4).allSatisfy(\.isASCIIAlphanumeric),
                  Self.isClassicPDB(String(upper.suffix(4))) {
            // Extended IDs of classic entries (pdb_0000xxxx) are the same entry; keep the long form
            // as typed so that the archive is asked for it.
            self = .extendedPDB(upper.lowercased())
        } else if upper.hasPrefix("AF-"), upper.hasSuffix("-F1"), Self.isUniProt(String(upper.dropFirst(3).dropLast(3))) {
            self = .uniProt(String(upper.dropFirst(3).dropLast(3)))
        } else if Self.isUniProt(upper) {
            self = .uniProt(upper)
        } else {
            return nil
        }
    }

    /// The key the library stores the entry under.
    public var libraryID: String {
        switch self {
        case .pdb(let id): return id
        case .extendedPDB(let id): return id
        case .uniProt(let accession): return "AF-\(accession)-F1"
        }
    }

    public var description: String { libraryID }

    static func isClassicPDB(_ s: String) -> Bool {
        let c = Array(s.utf8)
        return c.count == 4 && (49...57).contains(c[0]) && c.dropFirst().allSatisfy { (48...57).contains($0) || (65...90).contains($0) }
    }

    /// UniProt's accession pattern: [OPQ][0-9][A-Z0-9]{3}[0-9], or [A-NR-Z][0-9]([A-Z][A-Z0-9]{2}[0-9]){1,2}.
    static func isUniProt(_ s: String) -> Bool {
        let c = Array(s.utf8)
        func digit(_ i: Int) -> Bool { (48...57).contains(c[i]) }
        func letter(_ i: Int) -> Bool { (65...90).contains(c[i]) }
        func alnum(_ i: Int) -> Bool { digit(i) || letter(i) }
        if c.count == 6, [79, 80, 81].contains(c[0]) {  // O, P, Q
            return digit(1) && alnum(2) && alnum(3) && alnum(4) && digit(5)
        }
        guard c.count == 6 || c.count == 10, letter(0), ![79, 80, 81].contains(c[0]), digit(1) else { return false }
        var i = 2
        while i < c.count {
            guard letter(i), alnum(i + 1), alnum(i + 2), digit(i + 3) else { return false }
            i += 4
        }
        return true
    }
}

extension String {
    var trimmingWhitespace: String {
        var s = Substring(self)
        while let f = s.first, f.isWhitespace { s.removeFirst() }
        while let l = s.last, l.isWhitespace { s.removeLast() }
        return String(s)
    }
}

extension Character {
    var isASCIIAlphanumeric: Bool { isASCII && (isLetter || isNumber) }
}
