import Foundation

/// Interactions as the command line and the API give them: each ligand with its binding site and
/// interactions, atoms named as people name them ("ARG 88 NH1", chain A) beside their indices in the
/// first model (the identify table's atom indices), and a line of words per interaction
/// ("H-bond: ARG A88 NH1 → AP5 A215 O2A, 2.90 Å").
public struct InteractionReport: Codable, Sendable, Equatable {
    public struct AtomName: Codable, Sendable, Equatable {
        public var index: Int
        public var chain: String
        public var residue: String
        /// The residue's number with its insertion code ("88", "27A").
        public var number: String
        public var atom: String
    }

    public struct ResidueName: Codable, Sendable, Equatable {
        public var index: Int
        public var chain: String
        public var residue: String
        public var number: String
    }

    public struct Entry: Codable, Sendable, Equatable {
        public var kind: InteractionKind
        public var ligand: [AtomName]
        public var partner: [AtomName]
        public var water: AtomName?
        public var distance: Float
        public var angle: Float?
        public var ligandDonates: Bool?
        public var form: String?
        public var words: String
    }

    public struct Site: Codable, Sendable, Equatable {
        /// The ligand's residues, the first naming it.
        public var ligand: [ResidueName]
        public var additive: Bool
        public var site: [ResidueName]
        public var interactions: [Entry]
        /// How many of each kind, by kind's name.
        public var counts: [String: Int]
    }

    /// Each kind in words and in the colour the binding-site view draws it ("#2f6fdf"): the page's legend.
    public struct Legend: Codable, Sendable, Equatable {
        public var kind: InteractionKind
        public var words: String
        public var color: String
    }

    /// Where two protein chains touch (`ChainInterfaces`): each side's residues, and the H-bonds and
    /// salt bridges between them, the first chain's atoms as `ligand`, the second's as `partner`.
    public struct Interface: Codable, Sendable, Equatable {
        public var chains: [String]
        public var residues: [[ResidueName]]
        public var interactions: [Entry]
        public var counts: [String: Int]
    }

    public var id: String
    public var siteRadius: Float
    public var sites: [Site]
    public var interfaces: [Interface] = []
    public var legend: [Legend] = InteractionKind.allCases.map {
        Legend(kind: $0, words: $0.words, color: "#" + String(format: "%06x", $0.color))
    }

    public init(_ structure: Structure, sites found: [LigandSite], interfaces touching: [ChainInterface] = [],
                criteria: InteractionCriteria = .standard) {
        id = structure.metadata.id
        siteRadius = criteria.siteRadius
        guard let model = structure.models.first else { sites = []; return }
        let chainOf = model.chainIndexOfResidues()
        let residueOf = model.residueIndexOfAtoms()
        func residueName(_ r: Int) -> ResidueName {
            let residue = model.residues[r]
            return ResidueName(index: r, chain: model.chains[Int(chainOf[r])].id, residue: residue.name, number: residue.label)
        }
        func atomName(_ a: Int) -> AtomName {
            let r = residueName(Int(residueOf[a]))
            return AtomName(index: a, chain: r.chain, residue: r.residue, number: r.number, atom: model.atoms.names[a])
        }
        func entry(_ i: Interaction) -> Entry {
            let ligand = i.from.map(atomName), partner = i.to.map(atomName)
            return Entry(kind: i.kind, ligand: ligand, partner: partner, water: i.water.map(atomName), distance: i.distance,
                         angle: i.angle, ligandDonates: i.ligandDonates, form: i.form.isEmpty ? nil : i.form,
                         words: Self.words(i, ligand: ligand, partner: partner, water: i.water.map(atomName)))
        }
        func counts(_ found: [Interaction]) -> [String: Int] {
            var counts: [String: Int] = [:]
            for i in found { counts[i.kind.rawValue, default: 0] += 1 }
            return counts
        }
        sites = found.map { site in
            Site(ligand: site.residues.map(residueName), additive: site.isAdditive, site: site.siteResidues.map(residueName),
                 interactions: site.interactions.map(entry), counts: counts(site.interactions))
        }
        interfaces = touching.map { i in
            Interface(chains: [model.chains[i.chains.0].id, model.chains[i.chains.1].id],
                      residues: [i.residues.0.map(residueName), i.residues.1.map(residueName)],
                      interactions: i.interactions.map(entry), counts: counts(i.interactions))
        }
    }

    /// "H-bond: ARG A88 NH1 → AP5 A215 O2A, 2.90 Å" (the arrow from the donor), "π-stacking (parallel):
    /// PHE A86 ring – ATP A301 ring, 3.80 Å".
    static func words(_ i: Interaction, ligand: [AtomName], partner: [AtomName], water: AtomName?) -> String {
        func group(_ atoms: [AtomName]) -> String {
            guard let first = atoms.first else { return "?" }
            let residue = "\(first.residue) \(first.chain)\(first.number)"
            switch atoms.count {
            case 1: return "\(residue) \(first.atom)"
            default: return i.kind == .piStacking || (i.kind == .cationPi && atoms.count >= 5) ? "\(residue) ring" : "\(residue) \(atoms.map(\.atom).joined(separator: "/"))"
            }
        }
        let distance = String(format: "%.2f Å", Double(i.distance))
        let kind = i.form.isEmpty ? i.kind.words : "\(i.kind.words) (\(i.form))"
        let l = group(ligand), q = group(partner)
        switch i.kind {
        case .hydrogenBond: return "\(kind): \(i.ligandDonates == true ? "\(l) → \(q)" : "\(q) → \(l)"), \(distance)"
        case .waterBridge:
            let w = water.map { "water \($0.chain)\($0.number)" } ?? "water"
            return "\(kind): \(i.ligandDonates == true ? "\(l) → \(w) → \(q)" : "\(q) → \(w) → \(l)"), \(distance)"
        case .metalComplex: return "\(kind): \(l) – \(q), \(distance)"
        default: return "\(kind): \(q) – \(l), \(distance)"
        }
    }
}
