import Foundation

/// Free text (a title, a method) for formats whose text is ASCII, as PDB records are: Greek letters
/// spelled as PDB titles spell them (β → BETA), the rest transliterated by Foundation's ICU transform
/// "Any-Latin; Latin-ASCII" (é → e, ′ → ', “ ” → ", – → -), and whatever is still not ASCII one "?"
/// per character, never one per UTF-8 byte.
enum ASCIIText {
    static func fold(_ text: String) -> String {
        guard !text.utf8.allSatisfy({ $0 < 0x80 }) else { return text }
        var spelled = ""
        for scalar in text.unicodeScalars {
            if let name = greek[scalar.value] { spelled += name } else { spelled.unicodeScalars.append(scalar) }
        }
        let latin = spelled.applyingTransform(StringTransform("Any-Latin; Latin-ASCII"), reverse: false) ?? spelled
        return String(String.UnicodeScalarView(latin.unicodeScalars.map { $0.isASCII ? $0 : "?" }))
    }

    /// α … ω and Α … Ω by name (the final sigma ς too), and the micro sign µ.
    private static let greek: [UInt32: String] = {
        let names = ["ALPHA", "BETA", "GAMMA", "DELTA", "EPSILON", "ZETA", "ETA", "THETA", "IOTA", "KAPPA", "LAMBDA", "MU",
                     "NU", "XI", "OMICRON", "PI", "RHO", "SIGMA", "SIGMA", "TAU", "UPSILON", "PHI", "CHI", "PSI", "OMEGA"]
        var table: [UInt32: String] = [0x00B5: "MU"]
        for (k, name) in names.enumerated() {
            table[0x03B1 + UInt32(k)] = name
            if k != 17 { table[0x0391 + UInt32(k)] = name }  // 0x03A2 is unassigned
        }
        return table
    }()
}
