/// What holds a ligand: its non-covalent interactions with the rest of the structure, each with its
/// atoms and geometry (found by `InteractionFinder`).
public enum InteractionKind: String, Sendable, Codable, CaseIterable, Comparable {
    case hydrogenBond = "hydrogen-bond"
    case saltBridge = "salt-bridge"
    case piStacking = "pi-stacking"
    case cationPi = "cation-pi"
    case hydrophobic
    case halogenBond = "halogen-bond"
    case metalComplex = "metal-complex"
    case waterBridge = "water-bridge"

    /// As people read it: "H-bond", "salt bridge", "π-stacking".
    public var words: String {
        switch self {
        case .hydrogenBond: "H-bond"
        case .saltBridge: "salt bridge"
        case .piStacking: "π-stacking"
        case .cationPi: "cation–π"
        case .hydrophobic: "hydrophobic contact"
        case .halogenBond: "halogen bond"
        case .metalComplex: "metal coordination"
        case .waterBridge: "water bridge"
        }
    }

    /// The colour it is drawn in (sRGB), in the binding-site view and the page's legend: blue for
    /// H-bonds, gold for salt bridges, green for stacking, orange for cation–π, grey for hydrophobic
    /// contacts, cyan for halogen bonds, violet for metals, light blue for water bridges.
    public var color: UInt32 {
        switch self {
        case .hydrogenBond: 0x2F6FDF
        case .saltBridge: 0xE0A800
        case .piStacking: 0x2FA84F
        case .cationPi: 0xE06A1B
        case .hydrophobic: 0x8A8A8A
        case .halogenBond: 0x17A7B8
        case .metalComplex: 0x9040C0
        case .waterBridge: 0x6FB7FF
        }
    }

    public static func < (a: Self, b: Self) -> Bool {
        (allCases.firstIndex(of: a) ?? 0) < (allCases.firstIndex(of: b) ?? 0)
    }
}

/// One interaction. Atoms are indices into the first model's atom table; for groups (a ring, a
/// charged group) every atom of the group. `from` is the ligand's side, `to` the partner's (a
/// residue, a water, an ion, or for a metal complex the coordinating atom, the metal being `from`
/// when it is the ligand's).
public struct Interaction: Sendable, Equatable, Codable {
    public var kind: InteractionKind
    public var from: [Int]
    public var to: [Int]
    /// A water bridge's water oxygen.
    public var water: Int?
    /// Between the atoms' or the groups' centres (for a water bridge, acceptor to water), Å.
    public var distance: Float
    /// The angle the criterion reads (at the hydrogen for an H-bond, between the rings' planes for
    /// stacking, at the halogen for a halogen bond), degrees; nil where none is read.
    public var angle: Float?
    /// For H-bonds and water bridges, whether the ligand gives the hydrogen; nil otherwise.
    public var ligandDonates: Bool?
    /// "parallel" or "T-shaped" stacking; "" otherwise.
    public var form: String

    public init(kind: InteractionKind, from: [Int], to: [Int], water: Int? = nil, distance: Float, angle: Float? = nil,
                ligandDonates: Bool? = nil, form: String = "") {
        self.kind = kind; self.from = from; self.to = to; self.water = water; self.distance = distance
        self.angle = angle; self.ligandDonates = ligandDonates; self.form = form
    }
}

/// A ligand (one residue, or residues bonded to each other such as a glycan), its binding site and
/// its interactions.
public struct LigandSite: Sendable, Equatable, Codable {
    /// The ligand's residues (indices into the first model's residues), the first naming it.
    public var residues: [Int]
    /// Its atoms, the first alternate location's where there are several.
    public var atoms: [Int]
    /// A common ion, buffer or cryoprotectant (SO4, GOL, EDO, …): still a ligand, but marked so.
    public var isAdditive: Bool
    /// Residues with an atom within the criteria's site radius of a ligand atom (not the ligand's own,
    /// not water), in the model's order.
    public var siteResidues: [Int]
    public var interactions: [Interaction]
}
