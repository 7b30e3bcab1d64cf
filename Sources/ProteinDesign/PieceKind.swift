/// The builder's four pieces, the buttons of the original game: Helix (α), Strand (β, the "Sheet"
/// button), Flexible coil and Rigid coil (polyproline II).
public enum PieceKind: String, Sendable, CaseIterable, Codable {
    case helix
    case strand
    case flexibleCoil = "flexible-coil"
    case rigidCoil = "rigid-coil"

    /// Accepts the names people type: `helix`, `strand`/`sheet`, `coil`/`flex`, `rigid`/`ppii`, ….
    public init?(name: String) {
        guard let kind = Self.aliases[name.lowercased()] else { return nil }
        self = kind
    }

    static let aliases: [String: PieceKind] = [
        "helix": .helix, "alpha": .helix, "h": .helix,
        "strand": .strand, "sheet": .strand, "beta": .strand, "e": .strand,
        "coil": .flexibleCoil, "flexible-coil": .flexibleCoil, "flexible": .flexibleCoil, "flex": .flexibleCoil,
        "flex-coil": .flexibleCoil, "loop": .flexibleCoil,
        "rigid-coil": .rigidCoil, "rigid": .rigidCoil, "rig-coil": .rigidCoil, "ppii": .rigidCoil, "polyproline": .rigidCoil,
    ]

    /// What error messages list as accepted names.
    public static let acceptedNames = "helix, strand (or sheet), coil (or flexible-coil), rigid-coil (or ppii)"

    /// The name in verdicts, the same as the Design screen's buttons: "Helix – Flex coil – Helix". A
    /// Sheet piece is one β-strand; two side by side, joined by a short turn, make a sheet.
    public var displayName: String {
        switch self {
        case .helix: "Helix"
        case .strand: "Sheet"
        case .flexibleCoil: "Flex coil"
        case .rigidCoil: "Rigid coil"
        }
    }

    public var isCoil: Bool { self == .flexibleCoil || self == .rigidCoil }

    /// A length that shows the piece's shape: three and a half turns of helix, a strand that pairs,
    /// a coil long enough to turn a chain back.
    public var defaultLength: Int {
        switch self {
        case .helix: 14
        case .strand: 6
        case .flexibleCoil: 4
        case .rigidCoil: 4
        }
    }

    /// The default sequence repeats this: an amphipathic helix former, alternating strand formers,
    /// turn formers (Gly-Asn, the two middle residues of a type II' β-turn, the tightest hairpin
    /// turn) with Ser and Gly, and prolines for polyproline II.
    var defaultPattern: [Character] {
        switch self {
        case .helix: Array("AEELLKK")
        case .strand: Array("TVKVEV")
        case .flexibleCoil: Array("GNSG")
        case .rigidCoil: Array("PPEP")
        }
    }

    /// Backbone torsions (φ, ψ) in degrees for the pieces with a fixed shape: the α-helix of
    /// Pauling and Corey as refined from structures, the antiparallel β-strand, polyproline II.
    var idealTorsions: (phi: Double, psi: Double)? {
        switch self {
        case .helix: (-57, -47)
        case .strand: (-139, 135)
        case .rigidCoil: (-75, 145)
        case .flexibleCoil: nil
        }
    }

    /// The piece's colour in the web app and in the pieces' model: the colours of the secondary
    /// structure the built model shows (a helix magenta, a sheet yellow, a coil grey), so a
    /// piece's button, its place in the list and what it becomes look alike.
    public var color: String {
        switch self {
        case .helix: "#ff0080"
        case .strand: "#ffc800"
        case .flexibleCoil: "#949494"
        case .rigidCoil: "#6080ff"
        }
    }
}
