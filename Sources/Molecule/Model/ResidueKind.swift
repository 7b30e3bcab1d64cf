/// What kind of monomer a residue name denotes, for sequences, styles and bond rules.
public enum ResidueKind: Sendable, Equatable {
    case aminoAcid, nucleotide, water, other

    public static func of(_ name: String) -> ResidueKind {
        if let k = table[name] { return k }
        return .other
    }

    static let waterNames: Set<String> = ["HOH", "WAT", "H2O", "DOD", "D2O", "TIP", "TIP3", "SOL"]

    /// One-letter codes of the standard and common modified amino acids.
    public static let aminoAcidCodes: [String: Character] = [
        "ALA": "A", "ARG": "R", "ASN": "N", "ASP": "D", "CYS": "C", "GLN": "Q", "GLU": "E", "GLY": "G",
        "HIS": "H", "ILE": "I", "LEU": "L", "LYS": "K", "MET": "M", "PHE": "F", "PRO": "P", "SER": "S",
        "THR": "T", "TRP": "W", "TYR": "Y", "VAL": "V", "SEC": "U", "PYL": "O", "MSE": "M", "HSD": "H",
        "HSE": "H", "HSP": "H", "HID": "H", "HIE": "H", "HIP": "H", "CYX": "C", "ASX": "B", "GLX": "Z",
        "UNK": "X", "SEP": "S", "TPO": "T", "PTR": "Y", "MLY": "K", "CSO": "C", "HYP": "P", "KCX": "K",
        "LLP": "K", "CME": "C", "OCS": "C", "CSD": "C", "M3L": "K", "FME": "M", "PCA": "E",
    ]

    public static let nucleotideCodes: [String: Character] = [
        "A": "A", "C": "C", "G": "G", "U": "U", "I": "I", "T": "T", "N": "N",
        "DA": "A", "DC": "C", "DG": "G", "DT": "T", "DU": "U", "DI": "I",
        "ADE": "A", "CYT": "C", "GUA": "G", "THY": "T", "URA": "U", "PSU": "U", "5MC": "C", "OMG": "G",
        "2MG": "G", "H2U": "U", "M2G": "G", "1MA": "A", "7MG": "G", "OMC": "C", "5MU": "U",
    ]

    static let table: [String: ResidueKind] = {
        var t: [String: ResidueKind] = [:]
        for k in aminoAcidCodes.keys { t[k] = .aminoAcid }
        for k in nucleotideCodes.keys { t[k] = .nucleotide }
        for k in waterNames { t[k] = .water }
        return t
    }()

    /// Force-field names (Amber, CHARMM) for protonation states of standard residues, mapped to the
    /// Chemical Component Dictionary name whose bonds they share.
    public static let standardNames: [String: String] = [
        "HID": "HIS", "HIE": "HIS", "HIP": "HIS", "HSD": "HIS", "HSE": "HIS", "HSP": "HIS",
        "CYX": "CYS", "CYM": "CYS", "ASH": "ASP", "GLH": "GLU", "LYN": "LYS",
    ]

    /// One-letter code of a polymer residue: "X" for unknown amino acids, "N" for unknown nucleotides.
    public static func oneLetterCode(_ name: String) -> Character {
        if let c = aminoAcidCodes[name] { return c }
        if let c = nucleotideCodes[name] { return c }
        return "X"
    }
}
