import SceneExport
import Molecule

/// How atoms are coloured. Every scheme yields linear RGBA in 0...1, one colour per atom.
///
/// Schemes that describe polymer residues (secondary structure, residue type, hydrophobicity,
/// rainbow) colour atoms outside polymers (ligands, ions, water) by element.
public enum ColorScheme: String, CaseIterable, Sendable {
    /// Jmol's CPK colours.
    case element
    /// A categorical palette by chain index.
    case chain
    /// Helix, strand and turn in Mol*'s colours, coil in grey; nucleic acids in DNA/RNA colours.
    case secondaryStructure = "secondary-structure"
    /// Acidic, basic, polar, hydrophobic and special amino acids; nucleotides by base.
    case residueType = "residue-type"
    /// Kyte–Doolittle hydropathy on a blue (hydrophilic) → white → orange-red (hydrophobic) ramp.
    case hydrophobicity
    /// B-factor normalised over the model, blue (low) → white → red (high).
    case bFactor = "b-factor"
    /// Blue (N-terminus, 5′) → red (C-terminus, 3′) along each polymer chain.
    case rainbow
    /// A categorical palette by entity index.
    case entity
    /// One colour for everything (`ColorScheme.uniformColor`).
    case uniform

    /// The scheme as people read it, in menus: "Secondary structure".
    public var displayName: String {
        switch self {
        case .element: return "Element"
        case .chain: return "Chain"
        case .secondaryStructure: return "Secondary structure"
        case .residueType: return "Residue type"
        case .hydrophobicity: return "Hydrophobicity"
        case .bFactor: return "B-factor"
        case .rainbow: return "Rainbow (N→C)"
        case .entity: return "Entity"
        case .uniform: return "Uniform"
        }
    }

    /// A light grey-blue, linear RGBA.
    public static let uniformColor = SRGB.linear(hex: 0xB4C3D2)

    /// Parses a command-line name: case-insensitive, `_` taken as `-`; also "cpk", "bfactor", "ss",
    /// "sse", "residue", "hydropathy".
    public init(argument: String) throws(ColorSchemeError) {
        let name = String(argument.lowercased().map { $0 == "_" ? "-" : $0 })
        if let s = ColorScheme(rawValue: name) { self = s; return }
        switch name {
        case "cpk": self = .element
        case "bfactor", "temperature": self = .bFactor
        case "ss", "sse", "secondary", "secondarystructure": self = .secondaryStructure
        case "residue", "residuetype", "restype": self = .residueType
        case "hydropathy", "kyte-doolittle": self = .hydrophobicity
        default: throw ColorSchemeError(name: argument)
        }
    }

    /// One linear RGBA colour per atom of `model`. `secondaryStructure` has one code per residue
    /// (only the secondary-structure scheme reads it; residues past its end count as coil).
    public func atomColors(for model: Model, in structure: Structure,
                           secondaryStructure: [SecondaryStructureCode]) -> [SIMD4<Float>] {
        let atoms = model.atoms
        let n = atoms.count
        if self == .uniform { return [SIMD4<Float>](repeating: Self.uniformColor, count: n) }
        var out = [SIMD4<Float>](repeating: Self.uniformColor, count: n)
        let elementTable = ColorMath.elementColors
        func elementColor(_ i: Int) -> SIMD4<Float> { elementTable[Int(atoms.elements[i].atomicNumber)] }

        switch self {
        case .element, .uniform:
            for i in 0..<n { out[i] = elementColor(i) }

        case .chain:
            for (c, chain) in model.chains.enumerated() {
                let color = ColorMath.categorical(c)
                for r in chain.residueRange { for i in model.residues[r].atomRange { out[i] = color } }
            }

        case .entity:
            let noEntity = SRGB.linear(hex: 0xA0A0A0)
            for chain in model.chains {
                let color = chain.entityIndex.map(ColorMath.categorical) ?? noEntity
                for r in chain.residueRange { for i in model.residues[r].atomRange { out[i] = color } }
            }

        case .secondaryStructure:
            for (r, res) in model.residues.enumerated() {
                let color: SIMD4<Float>
                switch res.kind {
                case .aminoAcid:
                    let code = r < secondaryStructure.count ? secondaryStructure[r] : .coil
                    color = ColorMath.secondaryStructureColor(code)
                case .nucleotide:
                    color = res.name.hasPrefix("D") ? SRGB.linear(hex: 0xAE00FE) : SRGB.linear(hex: 0xFD0162)
                default:
                    for i in res.atomRange { out[i] = elementColor(i) }
                    continue
                }
                for i in res.atomRange { out[i] = color }
            }

        case .residueType:
            for res in model.residues {
                guard let color = ColorMath.residueTypeColor(res) else {
                    for i in res.atomRange { out[i] = elementColor(i) }
                    continue
                }
                for i in res.atomRange { out[i] = color }
            }

        case .hydrophobicity:
            for res in model.residues {
                guard res.kind == .aminoAcid else {
                    for i in res.atomRange { out[i] = elementColor(i) }
                    continue
                }
                let h = ColorMath.kyteDoolittle[ResidueKind.oneLetterCode(res.name)] ?? 0
                let t = Double((h + 4.5) / 9)  // −4.5…4.5 → 0…1
                let color = ColorMath.ramp(t, ColorMath.hydrophobicityStops)
                for i in res.atomRange { out[i] = color }
            }

        case .bFactor:
            var lo = Float.infinity, hi = -Float.infinity
            for b in atoms.bFactors where b.isFinite { lo = min(lo, b); hi = max(hi, b) }
            for i in 0..<n {
                let b = atoms.bFactors[i]
                let t: Double = (hi > lo && b.isFinite) ? Double((b - lo) / (hi - lo)) : 0.5
                out[i] = ColorMath.ramp(t, ColorMath.bFactorStops)
            }

        case .rainbow:
            for i in 0..<n { out[i] = elementColor(i) }
            for chain in model.chains {
                let polymer = chain.residueRange.filter {
                    let k = model.residues[$0].kind
                    return k == .aminoAcid || k == .nucleotide
                }
                let last = max(polymer.count - 1, 1)
                for (k, r) in polymer.enumerated() {
                    let color = ColorMath.ramp(Double(k) / Double(last), ColorMath.rainbowStops)
                    for i in model.residues[r].atomRange { out[i] = color }
                }
            }
        }
        return out
    }
}

/// An unknown colour scheme name; the message lists the accepted ones.
public struct ColorSchemeError: Error, Sendable, Equatable, CustomStringConvertible {
    public var name: String
    public init(name: String) { self.name = name }
    public var description: String {
        "unknown colour scheme '\(name)'; accepted: " + ColorScheme.allCases.map(\.rawValue).joined(separator: ", ")
    }
}

/// Colour tables and conversions. Tables are written in sRGB hex, as their sources give them, and
/// converted to linear RGB once.
enum ColorMath {
    /// Piecewise-linear ramp through sRGB stops (interpolated in sRGB, then made linear), t in 0…1.
    static func ramp(_ t: Double, _ stops: [UInt32]) -> SIMD4<Float> {
        let x = t.isFinite ? min(max(t, 0), 1) : 0.5
        let s = x * Double(stops.count - 1)
        let i = min(Int(s), stops.count - 2)
        let f = s - Double(i)
        func channel(_ hex: UInt32, _ shift: UInt32) -> Double { Double((hex >> shift) & 0xFF) / 255 }
        let a = stops[i], b = stops[i + 1]
        func mix(_ shift: UInt32) -> Double { channel(a, shift) * (1 - f) + channel(b, shift) * f }
        return SRGB.linear(srgb: mix(16), mix(8), mix(0))
    }

    static let bFactorStops: [UInt32] = [0x2C4FD6, 0xFFFFFF, 0xD62C2C]
    static let hydrophobicityStops: [UInt32] = [0x2166AC, 0xFFFFFF, 0xE2571A]
    static let rainbowStops: [UInt32] = [0x0000FF, 0x00B0FF, 0x00D050, 0xE8E000, 0xFF8000, 0xFF0000]

    /// Tableau 10, a categorical palette; later cycles are lightened or darkened so that up to 50
    /// indices stay distinct.
    static let categoricalHex: [UInt32] = [
        0x4E79A7, 0xF28E2B, 0xE15759, 0x76B7B2, 0x59A14F, 0xEDC948, 0xB07AA1, 0xFF9DA7, 0x9C755F, 0xBAB0AC,
    ]

    static func categorical(_ index: Int) -> SIMD4<Float> {
        let i = max(index, 0)
        let hex = categoricalHex[i % categoricalHex.count]
        let cycle = (i / categoricalHex.count) % 5
        // Shades per cycle: as is, lighter, darker, much lighter, much darker (in sRGB).
        let (target, amount): (Double, Double) = [(0, 0), (1, 0.4), (0, 0.35), (1, 0.65), (0, 0.55)][cycle]
        func c(_ shift: UInt32) -> Double {
            let v = Double((hex >> shift) & 0xFF) / 255
            return v + (target - v) * amount
        }
        return SRGB.linear(srgb: c(16), c(8), c(0))
    }

    static func secondaryStructureColor(_ code: SecondaryStructureCode) -> SIMD4<Float> {
        switch code {
        case .alphaHelix: return SRGB.linear(hex: 0xFF0080)
        case .helix310: return SRGB.linear(hex: 0xA00080)
        case .piHelix: return SRGB.linear(hex: 0x600080)
        case .strand, .bridge: return SRGB.linear(hex: 0xFFC800)
        case .turn: return SRGB.linear(hex: 0x6080FF)
        // Mid grey, not Mol*'s white: a coil must show on the white view (3:1 against it).
        case .coil, .bend, .polyproline: return SRGB.linear(hex: 0x949494)
        }
    }

    /// Residue-type colour, or nil for residues that are neither amino acids nor nucleotides.
    static func residueTypeColor(_ res: Residue) -> SIMD4<Float>? {
        switch res.kind {
        case .aminoAcid:
            switch ResidueKind.oneLetterCode(res.name) {
            case "D", "E": return SRGB.linear(hex: 0xE03C31)             // acidic
            case "K", "R", "H": return SRGB.linear(hex: 0x3D6FE0)        // basic
            case "S", "T", "N", "Q", "Y", "C": return SRGB.linear(hex: 0x3FB56B)  // polar
            case "A", "V", "L", "I", "M", "F", "W": return SRGB.linear(hex: 0xE8C547)  // hydrophobic
            case "G", "P": return SRGB.linear(hex: 0xB57ED6)             // special
            default: return SRGB.linear(hex: 0xBEBEBE)
            }
        case .nucleotide:
            switch ResidueKind.oneLetterCode(res.name) {
            case "A": return SRGB.linear(hex: 0xA0A0FF)
            case "C": return SRGB.linear(hex: 0xFF8C4B)
            case "G": return SRGB.linear(hex: 0xFF7070)
            case "T": return SRGB.linear(hex: 0xA0FFA0)
            case "U": return SRGB.linear(hex: 0xFF8080)
            default: return SRGB.linear(hex: 0xBEBEBE)
            }
        default:
            return nil
        }
    }

    /// Kyte & Doolittle (1982) hydropathy index by one-letter code.
    static let kyteDoolittle: [Character: Float] = [
        "I": 4.5, "V": 4.2, "L": 3.8, "F": 2.8, "C": 2.5, "M": 1.9, "A": 1.8, "G": -0.4, "T": -0.7, "S": -0.8,
        "W": -0.9, "Y": -1.3, "P": -1.6, "H": -3.2, "E": -3.5, "Q": -3.5, "D": -3.5, "N": -3.5, "K": -3.9, "R": -4.5,
    ]

    /// Jmol's element colours (sRGB) by atomic number; index 0 (unknown) and elements past 109 deep pink.
    static let jmolHex: [UInt32] = [
        0xFF1493,
        0xFFFFFF, 0xD9FFFF, 0xCC80FF, 0xC2FF00, 0xFFB5B5, 0x909090, 0x3050F8, 0xFF0D0D, 0x90E050, 0xB3E3F5,
        0xAB5CF2, 0x8AFF00, 0xBFA6A6, 0xF0C8A0, 0xFF8000, 0xFFFF30, 0x1FF01F, 0x80D1E3, 0x8F40D4, 0x3DFF00,
        0xE6E6E6, 0xBFC2C7, 0xA6A6AB, 0x8A99C7, 0x9C7AC7, 0xE06633, 0xF090A0, 0x50D050, 0xC88033, 0x7D80B0,
        0xC28F8F, 0x668F8F, 0xBD80E3, 0xFFA100, 0xA62929, 0x5CB8D1, 0x702EB0, 0x00FF00, 0x94FFFF, 0x94E0E0,
        0x73C2C9, 0x54B5B5, 0x3B9E9E, 0x248F8F, 0x0A7D8C, 0x006985, 0xC0C0C0, 0xFFD98F, 0xA67573, 0x668080,
        0x9E63B5, 0xD47A00, 0x940094, 0x429EB0, 0x57178F, 0x00C900, 0x70D4FF, 0xFFFFC7, 0xD9FFC7, 0xC7FFC7,
        0xA3FFC7, 0x8FFFC7, 0x61FFC7, 0x45FFC7, 0x30FFC7, 0x1FFFC7, 0x00FF9C, 0x00E675, 0x00D452, 0x00BF38,
        0x00AB24, 0x4DC2FF, 0x4DA6FF, 0x2194D6, 0x267DAB, 0x266696, 0x175487, 0xD0D0E0, 0xFFD123, 0xB8B8D0,
        0xA6544D, 0x575961, 0x9E4FB5, 0xAB5C00, 0x754F45, 0x428296, 0x420066, 0x007D00, 0x70ABFA, 0x00BAFF,
        0x00A1FF, 0x008FFF, 0x0080FF, 0x006BFF, 0x545CF2, 0x785CE3, 0x8A4FE3, 0xA136D4, 0xB31FD4, 0xB31FBA,
        0xB30DA6, 0xBD0D87, 0xC70066, 0xCC0059, 0xD1004F, 0xD90045, 0xE00038, 0xE6002E, 0xEB0026,
    ]

    /// Linear RGBA by atomic number, 0…255 (every `Element` indexes it).
    static let elementColors: [SIMD4<Float>] = (0..<256).map { z in SRGB.linear(hex: z < jmolHex.count ? jmolHex[z] : 0xFF1493) }
}
