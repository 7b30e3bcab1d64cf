import Foundation

/// Intra-residue bonds of standard residues and common ligands, derived from the Chemical Component
/// Dictionary by `scripts/tools/derive-ccd-bonds.py` into `Resources/ccd-bonds.tsv`.
public struct ComponentBondTable: Sendable {
    public struct Bond: Sendable, Equatable {
        public var atom1: String
        public var atom2: String
        public var order: BondOrder
    }

    /// Component name → its bonds. A known component with no bonds (an ion, water without H) maps to [].
    public let components: [String: [Bond]]

    /// The table shipped with the package, loaded once.
    public static let standard: ComponentBondTable = {
        guard let url = Bundle.module.url(forResource: "ccd-bonds", withExtension: "tsv"),
              let data = try? Data(contentsOf: url) else { return ComponentBondTable(components: [:]) }
        return ComponentBondTable(text: String(decoding: data, as: UTF8.self))
    }()

    public init(components: [String: [Bond]]) { self.components = components }

    /// Parses lines `NAME<TAB>atom1 atom2 ORDER …` where ORDER is 1, 2 or 3, with `a` for aromatic.
    public init(text: String) {
        var table: [String: [Bond]] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: "\t", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = parts.first, !name.isEmpty else { continue }
            var bonds: [Bond] = []
            if parts.count > 1 {
                let f = parts[1].split(separator: " ")
                var i = 0
                while i + 2 < f.count {
                    let o = f[i + 2]
                    let order: BondOrder = o.hasSuffix("a") ? .aromatic : o == "2" ? .double : o == "3" ? .triple : .single
                    bonds.append(Bond(atom1: String(f[i]), atom2: String(f[i + 1]), order: order))
                    i += 3
                }
            }
            table[String(name)] = bonds
        }
        components = table
    }

    public func bonds(of component: String) -> [Bond]? { components[component] }
}
