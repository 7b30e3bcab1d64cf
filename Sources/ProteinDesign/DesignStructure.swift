import Foundation
import Molecule

/// The built chain as a normal `Structure`: written, rendered and exported like any other.
extension PlacedBackbone {
    /// `sideChains`: the atoms beyond CB of each residue (`packSideChains()`), or nil for the
    /// backbone and CB alone. `hydrogens`: each residue's hydrogens after its heavy atoms.
    func makeStructure(sideChains: SideChains? = nil, hydrogens: Bool = false) -> Structure {
        var model = Model(number: 1)
        var serial: Int32 = 1
        var monomers: [String] = []
        for r in 0..<chain.count {
            let name = Self.residueNames[chain.sequence[r]] ?? "UNK"
            monomers.append(name)
            let start = Int32(model.atoms.count)
            let heavy = chain.heavyAtoms(of: r, sideChain: sideChains?.positions[r] ?? [])
            let light = hydrogens ? chain.hydrogens(of: r, heavy: heavy).map { (name: $0.name, element: Element.hydrogen, position: $0.position) } : []
            for atom in heavy + light {
                let p = atom.position
                model.atoms.append(Atom(name: atom.name, element: atom.element, serial: serial,
                                        position: SIMD3<Float>(Float(p.x), Float(p.y), Float(p.z))))
                serial += 1
            }
            model.residues.append(Residue(name: name, number: Int32(r + 1), sequenceIndex: Int32(r),
                                          atomStart: start, atomEnd: Int32(model.atoms.count)))
        }
        model.chains = [Chain(id: "A", labelID: "A", entityIndex: 0, residueStart: 0, residueEnd: Int32(chain.count))]
        var structure = Structure()
        structure.metadata.id = "DESIGN"
        structure.metadata.title = "Designed protein: \(spec.name)"
        structure.metadata.experimentalMethods = ["THEORETICAL MODEL"]
        structure.metadata.authors = ["ProteinAR builder"]
        var entity = Entity(id: "1", kind: .polymer)
        entity.polymerType = .protein
        entity.description = spec.name
        entity.monomers = monomers
        entity.chainIDs = ["A"]
        structure.entities = [entity]
        structure.models = [model]
        return structure
    }

    static let residueNames: [Character: String] = [
        "A": "ALA", "R": "ARG", "N": "ASN", "D": "ASP", "C": "CYS", "Q": "GLN", "E": "GLU", "G": "GLY", "H": "HIS", "I": "ILE",
        "L": "LEU", "K": "LYS", "M": "MET", "F": "PHE", "P": "PRO", "S": "SER", "T": "THR", "W": "TRP", "Y": "TYR", "V": "VAL",
    ]
}
