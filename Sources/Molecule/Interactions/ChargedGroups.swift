import Geometry

/// A charged group: its atoms and centre, positive or negative.
struct ChargedGroup {
    var atoms: [Int]
    var center: SIMD3<Float>
    var positive: Bool
    /// A tertiary amine (cation–π then also asks for its plane's angle to the ring).
    var isTertiaryAmine = false
}

/// Charged groups as PLIP defines them: Arg, His and Lys side-chain nitrogens (positive) and Asp and
/// Glu side-chain oxygens (negative) by name; in a ligand, quaternary and tertiary (sp3) amines,
/// sulfonium and guanidine (positive), and phosphate, sulfonate, sulfate and carboxylate (negative).
enum ChargedGroups {
    static func aminoAcid(_ residue: Residue, in chemistry: AtomChemistry) -> ChargedGroup? {
        let names = chemistry.model.atoms.names
        let standard = ResidueKind.standardNames[residue.name] ?? residue.name
        let positive: Bool
        let picked: Set<String>
        switch standard {
        case "ARG": positive = true; picked = ["NE", "NH1", "NH2"]
        case "HIS": positive = true; picked = ["ND1", "NE2"]
        case "LYS": positive = true; picked = ["NZ"]
        case "ASP": positive = false; picked = ["OD1", "OD2"]
        case "GLU": positive = false; picked = ["OE1", "OE2"]
        default: return nil
        }
        let atoms = residue.atomRange.filter { chemistry.kept[$0] && picked.contains(names[$0]) }
        guard !atoms.isEmpty else { return nil }
        return ChargedGroup(atoms: atoms, center: centroid(atoms, chemistry.positions), positive: positive)
    }

    static func ligand(_ atoms: [Int], in chemistry: AtomChemistry) -> [ChargedGroup] {
        var groups: [ChargedGroup] = []
        let p = chemistry.positions
        for a in atoms {
            let around = chemistry.heavyNeighbours(a)
            let elements = around.map(chemistry.element)
            let hasHydrogen = chemistry.neighbours[a].contains { chemistry.element(Int($0)) == 1 }
            switch chemistry.element(a) {
            case 7:
                if around.count == 4, !hasHydrogen {
                    groups.append(ChargedGroup(atoms: [a], center: p[a], positive: true))
                } else if around.count == 3, !chemistry.typing.isPlanar(a) {
                    groups.append(ChargedGroup(atoms: [a], center: p[a], positive: true, isTertiaryAmine: true))
                }
            case 16:
                let oxygens = elements.filter { $0 == 8 }.count
                if around.count == 3, !hasHydrogen, oxygens == 0 {
                    groups.append(ChargedGroup(atoms: [a], center: p[a], positive: true))  // sulfonium
                } else if oxygens >= 3 {
                    groups.append(ChargedGroup(atoms: [a] + around.filter { chemistry.element($0) == 8 }, center: p[a], positive: false))
                }
            case 15 where !around.isEmpty && elements.allSatisfy({ $0 == 8 }):
                groups.append(ChargedGroup(atoms: [a] + around, center: p[a], positive: false))  // phosphate
            case 6:
                let oxygens = around.filter { chemistry.element($0) == 8 }
                if oxygens.count == 2, elements.filter({ $0 == 6 }).count == 1, around.count == 3,
                   oxygens.allSatisfy({ chemistry.heavyNeighbours($0).count == 1 }) {
                    groups.append(ChargedGroup(atoms: oxygens, center: centroid(oxygens, p), positive: false))  // carboxylate
                } else if around.count == 3, elements.allSatisfy({ $0 == 7 }),
                          around.contains(where: { chemistry.heavyNeighbours($0).count == 1 }) {
                    groups.append(ChargedGroup(atoms: around, center: p[a], positive: true))  // guanidine
                }
            default: break
            }
        }
        return groups
    }

    static func centroid(_ atoms: [Int], _ positions: [SIMD3<Float>]) -> SIMD3<Float> {
        atoms.reduce(SIMD3<Float>.zero) { $0 + positions[$1] } / Float(max(atoms.count, 1))
    }
}
