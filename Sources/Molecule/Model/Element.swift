/// A chemical element, stored as its atomic number so an atom's element costs one byte.
public struct Element: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let atomicNumber: UInt8

    public init(atomicNumber: UInt8) {
        self.atomicNumber = atomicNumber < UInt8(ElementData.symbols.count) ? atomicNumber : 0
    }

    /// Case-insensitive symbol lookup ("FE", "Fe", "fe"); `D` and `T` count as hydrogen isotopes.
    public init?<S: StringProtocol>(symbol: S) {
        var bytes: (UInt8, UInt8) = (0, 0)
        var count = 0
        for b in symbol.utf8 where b != 0x20 {
            guard count < 2 else { return nil }
            if count == 0 { bytes.0 = b } else { bytes.1 = b }
            count += 1
        }
        guard count > 0, let e = Element.lookup(bytes.0, count == 2 ? bytes.1 : 0) else { return nil }
        self = e
    }

    /// Lookup from one or two raw ASCII bytes (second byte 0 for one-letter symbols).
    @inline(__always)
    public static func lookup(_ first: UInt8, _ second: UInt8) -> Element? {
        guard first < 0x80, second < 0x80 else { return nil }
        let z = ElementData.bySymbol[Int(upper(first)) << 7 | Int(upper(second))]
        return z == 0 ? nil : Element(atomicNumber: z)
    }

    @inline(__always) static func upper(_ b: UInt8) -> UInt8 { (b >= 0x61 && b <= 0x7A) ? b - 32 : b }

    public static let unknown = Element(atomicNumber: 0)
    public static let hydrogen = Element(atomicNumber: 1)
    public static let carbon = Element(atomicNumber: 6)
    public static let nitrogen = Element(atomicNumber: 7)
    public static let oxygen = Element(atomicNumber: 8)
    public static let phosphorus = Element(atomicNumber: 15)
    public static let sulfur = Element(atomicNumber: 16)
    public static let selenium = Element(atomicNumber: 34)

    /// Standard capitalisation, "Fe"; "X" for unknown.
    public var symbol: String { ElementData.symbols[Int(atomicNumber)] }
    public var description: String { symbol }
    public var isHydrogen: Bool { atomicNumber == 1 }
    public var isMetal: Bool { ElementData.isMetal(atomicNumber) }

    /// Single-bond covalent radius in Å (Cordero et al. 2008).
    public var covalentRadius: Float { ElementData.covalentRadii[Int(atomicNumber)] }
    /// Van der Waals radius in Å (Bondi 1964, Alvarez 2013 where Bondi has none).
    public var vanDerWaalsRadius: Float { ElementData.vdwRadii[Int(atomicNumber)] }

    public static func < (a: Element, b: Element) -> Bool { a.atomicNumber < b.atomicNumber }
}

enum ElementData {
    static let symbols: [String] = [
        "X", "H", "He", "Li", "Be", "B", "C", "N", "O", "F", "Ne", "Na", "Mg", "Al", "Si", "P", "S", "Cl", "Ar",
        "K", "Ca", "Sc", "Ti", "V", "Cr", "Mn", "Fe", "Co", "Ni", "Cu", "Zn", "Ga", "Ge", "As", "Se", "Br", "Kr",
        "Rb", "Sr", "Y", "Zr", "Nb", "Mo", "Tc", "Ru", "Rh", "Pd", "Ag", "Cd", "In", "Sn", "Sb", "Te", "I", "Xe",
        "Cs", "Ba", "La", "Ce", "Pr", "Nd", "Pm", "Sm", "Eu", "Gd", "Tb", "Dy", "Ho", "Er", "Tm", "Yb", "Lu",
        "Hf", "Ta", "W", "Re", "Os", "Ir", "Pt", "Au", "Hg", "Tl", "Pb", "Bi", "Po", "At", "Rn",
        "Fr", "Ra", "Ac", "Th", "Pa", "U", "Np", "Pu", "Am", "Cm", "Bk", "Cf", "Es", "Fm", "Md", "No", "Lr",
        "Rf", "Db", "Sg", "Bh", "Hs", "Mt", "Ds", "Rg", "Cn", "Nh", "Fl", "Mc", "Lv", "Ts", "Og",
    ]

    /// Atomic number by upper-cased symbol bytes (first << 7 | second, second 0 for one letter); 0 = none.
    static let bySymbol: [UInt8] = {
        var table = [UInt8](repeating: 0, count: 128 * 128)
        for (z, s) in symbols.enumerated() where z > 0 {
            let u = Array(s.uppercased().utf8)
            table[Int(u[0]) << 7 | Int(u.count > 1 ? u[1] : 0)] = UInt8(z)
        }
        table[Int(UInt8(ascii: "D")) << 7] = 1  // deuterium
        table[Int(UInt8(ascii: "T")) << 7] = 1  // tritium
        return table
    }()

    // Cordero 2008 single-bond radii (sp3 C), Å; 1.50 where none is tabulated.
    static let covalentRadii: [Float] = [
        1.50, 0.31, 0.28, 1.28, 0.96, 0.84, 0.76, 0.71, 0.66, 0.57, 0.58, 1.66, 1.41, 1.21, 1.11, 1.07, 1.05, 1.02, 1.06,
        2.03, 1.76, 1.70, 1.60, 1.53, 1.39, 1.39, 1.32, 1.26, 1.24, 1.32, 1.22, 1.22, 1.20, 1.19, 1.20, 1.20, 1.16,
        2.20, 1.95, 1.90, 1.75, 1.64, 1.54, 1.47, 1.46, 1.42, 1.39, 1.45, 1.44, 1.42, 1.39, 1.39, 1.38, 1.39, 1.40,
        2.44, 2.15, 2.07, 2.04, 2.03, 2.01, 1.99, 1.98, 1.98, 1.96, 1.94, 1.92, 1.92, 1.89, 1.90, 1.87, 1.87,
        1.75, 1.70, 1.62, 1.51, 1.44, 1.41, 1.36, 1.36, 1.32, 1.45, 1.46, 1.48, 1.40, 1.50, 1.50,
        2.60, 2.21, 2.15, 2.06, 2.00, 1.96, 1.90, 1.87, 1.80, 1.69, 1.50, 1.50, 1.50, 1.50, 1.50, 1.50, 1.50,
        1.50, 1.50, 1.50, 1.50, 1.50, 1.50, 1.50, 1.50, 1.50, 1.50, 1.50, 1.50, 1.50, 1.50, 1.50,
    ]

    // Van der Waals radii, Å (Bondi 1964; Alvarez 2013 for elements Bondi lacks); 2.0 where unknown.
    static let vdwRadii: [Float] = [
        2.00, 1.20, 1.40, 1.82, 1.53, 1.92, 1.70, 1.55, 1.52, 1.47, 1.54, 2.27, 1.73, 1.84, 2.10, 1.80, 1.80, 1.75, 1.88,
        2.75, 2.31, 2.15, 2.11, 2.07, 2.06, 2.05, 2.04, 2.00, 1.63, 1.40, 1.39, 1.87, 2.11, 1.85, 1.90, 1.85, 2.02,
        3.03, 2.49, 2.32, 2.23, 2.18, 2.17, 2.16, 2.13, 2.10, 1.63, 1.72, 1.58, 1.93, 2.17, 2.06, 2.06, 1.98, 2.16,
        3.43, 2.68, 2.43, 2.42, 2.40, 2.39, 2.38, 2.36, 2.35, 2.34, 2.33, 2.31, 2.30, 2.29, 2.27, 2.26, 2.24,
        2.23, 2.22, 2.18, 2.16, 2.16, 2.13, 1.75, 1.66, 1.55, 1.96, 2.02, 2.07, 1.97, 2.02, 2.20,
        3.48, 2.83, 2.47, 2.45, 2.43, 1.86, 2.39, 2.43, 2.44, 2.45, 2.44, 2.45, 2.45, 2.45, 2.46, 2.46, 2.46,
        2.00, 2.00, 2.00, 2.00, 2.00, 2.00, 2.00, 2.00, 2.00, 2.00, 2.00, 2.00, 2.00, 2.00, 2.00,
    ]

    static func isMetal(_ z: UInt8) -> Bool {
        switch z {
        case 3, 4, 11, 12, 13, 19...31, 37...50, 55...84, 87...118: return true
        default: return false
        }
    }
}
