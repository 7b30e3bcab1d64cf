import Foundation
import Geometry

/// Which atoms give and take hydrogen bonds. Amino acids by their atom names; anything else by its
/// element, its bonded neighbours and, where a file has no hydrogens, its bond lengths (a C=O is
/// under 1.30 Å, a C–O over; a ring N with a bond under 1.33 Å carries no hydrogen); a ring or
/// imine nitrogen of a component the Chemical Component Dictionary knows (ATP, NAD, …) has the
/// hydrogens the dictionary gives it (ADP's N6 two, its N7 and N1 none).
/// A residue that carries hydrogens (NMR, a simulation, a structure run through Reduce or Open
/// Babel, a ligand refined with its hydrogens) is read as it stands: an atom gives the hydrogens it
/// has and nothing more, whatever its name says (a protonated Asp donates, a Trp NE1 without its
/// hydrogen does not). Residues without any are typed by the chemistry below.
struct PolarTyping {
    let atoms: AtomTable
    let neighbours: [[Int32]]
    /// Per atom: its residue carries hydrogens, so none is placed or assumed.
    let hydrogensGiven: [Bool]

    struct Part {
        var acceptor = false
        var donor: AtomChemistry.Donor?
    }

    private func hydrogens(_ a: Int) -> [SIMD3<Float>] {
        neighbours[a].lazy.map(Int.init).filter { atoms.elements[$0].atomicNumber == 1 }.map { atoms.positions[$0] }
    }

    private func heavy(_ a: Int) -> [Int] {
        neighbours[a].lazy.map(Int.init).filter { atoms.elements[$0].atomicNumber != 1 }
    }

    /// A donor whose hydrogens the file gives, else (in a file without them) `fallback`.
    private func donor(_ a: Int, _ fallback: @autoclosure () -> AtomChemistry.Donor?) -> AtomChemistry.Donor? {
        let given = hydrogens(a)
        return !given.isEmpty ? .placed(given) : hydrogensGiven[a] ? nil : fallback()
    }

    /// The hydrogens the file gives an atom that carries none by its name (a protonated carboxylate).
    private func givenDonor(_ a: Int) -> AtomChemistry.Donor? {
        let given = [7, 8].contains(atoms.elements[a].atomicNumber) ? hydrogens(a) : []
        return given.isEmpty ? nil : .placed(given)
    }

    /// Hydrogens in the plane of an sp2 atom: one on the outer bisector of its two heavy neighbours,
    /// or two at 120° from its one neighbour, in the plane that neighbour's other neighbour makes.
    private func planarHydrogens(_ a: Int, count: Int) -> AtomChemistry.Donor? {
        let p = atoms.positions[a], around = heavy(a)
        if count == 1, around.count == 2 {
            let bisector = normalized(p - atoms.positions[around[0]]) + normalized(p - atoms.positions[around[1]])
            guard length(bisector) > 1e-4 else { return nil }
            return .placed([p + normalized(bisector)])
        }
        guard around.count == 1 else { return around.count == 0 ? .free : nil }
        let x = around[0]
        let u = normalized(p - atoms.positions[x])
        let plane = heavy(x).first { $0 != a }.map { atoms.positions[$0] - atoms.positions[x] } ?? anyPerpendicular(u)
        var w = plane - dot(plane, u) * u
        if length(w) < 1e-4 { w = anyPerpendicular(u) }
        w = normalized(w)
        // 120° from the neighbour: 60° off the bond's line, one each side in the plane.
        let hydrogens = [Float(1), -1].prefix(count).map { side in p + 0.5 * u + side * 0.866 * w }
        return .placed(hydrogens)
    }

    /// Hydrogens on an sp3 atom with one heavy neighbour X, staggered: the first anti to X's last
    /// other heavy neighbour (in the file's order), the others 120° round (as Open Babel places
    /// them, so as PLIP's hydrogens stand). Hydroxyls have one, amines two, ammonium groups three.
    private func staggeredHydrogens(_ a: Int, count: Int) -> AtomChemistry.Donor? {
        let around = heavy(a)
        guard around.count == 1 else { return around.isEmpty ? .free : nil }
        let p = atoms.positions[a], x = around[0]
        let u = normalized(p - atoms.positions[x])
        let reference = heavy(x).filter { $0 != a }.max().map { atoms.positions[$0] - atoms.positions[x] } ?? anyPerpendicular(u)
        var r = reference - dot(reference, u) * u
        if length(r) < 1e-4 { r = anyPerpendicular(u) }
        let anti = -normalized(r)
        let along: Float = 0.3338, across: Float = 0.9426  // cos and sin of 180° − 109.47°
        let hydrogens = (0..<count).map { k -> SIMD3<Float> in
            let turn = Float(k) * 2 * .pi / 3
            let v = anti * cos(turn) + cross(u, anti) * sin(turn)
            return p + along * u + across * v
        }
        return .placed(hydrogens)
    }

    /// The two free tetrahedral places on an sp3 atom with two heavy neighbours (a secondary amine's
    /// one hydrogen stands on one of them, its lone pair on the other).
    private func tetrahedralPlaces(_ a: Int) -> AtomChemistry.Donor? {
        let around = heavy(a)
        guard around.count == 2 else { return nil }
        let p = atoms.positions[a]
        let n1 = normalized(atoms.positions[around[0]] - p), n2 = normalized(atoms.positions[around[1]] - p)
        let bisector = -(n1 + n2), normal = cross(n1, n2)
        guard length(bisector) > 1e-4, length(normal) > 1e-4 else { return nil }
        let b = normalized(bisector), n = normalized(normal)
        return .placed([p + 0.577 * b + 0.816 * n, p + 0.577 * b - 0.816 * n])
    }

    // MARK: Amino acids

    private static let acceptorNames: [String: Set<String>] = [
        "ASN": ["OD1"], "GLN": ["OE1"], "ASP": ["OD1", "OD2"], "GLU": ["OE1", "OE2"], "SER": ["OG"], "THR": ["OG1"],
        "TYR": ["OH"], "HIS": ["ND1", "NE2"], "MET": [], "CYS": [],
    ]

    func aminoAcidPart(_ a: Int, residueName: String) -> Part {
        let name = atoms.names[a]
        let standard = ResidueKind.standardNames[residueName] ?? residueName
        switch (standard, name) {
        case (_, "O"), (_, "OXT"): return Part(acceptor: true, donor: givenDonor(a))
        case ("PRO", "N"): return Part()
        case (_, "N"):
            // The N-terminus's amine turns; a peptide N–H lies on the outer bisector of C(i−1) and Cα.
            return Part(donor: donor(a, heavy(a).count >= 2 ? planarHydrogens(a, count: 1) : staggeredHydrogens(a, count: 3)))
        case ("ARG", "NE"), ("TRP", "NE1"): return Part(donor: donor(a, planarHydrogens(a, count: 1)))
        case ("ARG", "NH1"), ("ARG", "NH2"), ("ASN", "ND2"), ("GLN", "NE2"): return Part(donor: donor(a, planarHydrogens(a, count: 2)))
        case ("HIS", "ND1"), ("HIS", "NE2"):
            // Either tautomer, unless the file says which nitrogen has the hydrogen.
            return Part(acceptor: !hydrogensGiven[a] || hydrogens(a).isEmpty, donor: donor(a, planarHydrogens(a, count: 1)))
        case ("LYS", "NZ"): return Part(donor: donor(a, staggeredHydrogens(a, count: 3)))
        case ("SER", "OG"), ("THR", "OG1"): return Part(acceptor: true, donor: donor(a, staggeredHydrogens(a, count: 1)))
        // A phenol's hydrogen lies in the ring's plane, on one side or the other.
        case ("TYR", "OH"): return Part(acceptor: true, donor: donor(a, planarHydrogens(a, count: 2)))
        default:
            if let names = Self.acceptorNames[standard] { return Part(acceptor: names.contains(name), donor: givenDonor(a)) }
            // A modified amino acid's side chain: typed as any other molecule.
            return otherPart(a, isWater: false, residueName: residueName)
        }
    }

    // MARK: Anything else

    /// How many hydrogens the Chemical Component Dictionary gives atom `a` of component `residueName`
    /// (`ComponentBondTable`); nil when the component or the atom is not in it.
    func dictionaryHydrogens(_ a: Int, residueName: String) -> Int? {
        guard let bonds = ComponentBondTable.standard.components[residueName], !bonds.isEmpty else { return nil }
        let name = atoms.names[a]
        var known = false, count = 0
        for bond in bonds {
            let other = bond.atom1 == name ? bond.atom2 : bond.atom2 == name ? bond.atom1 : nil
            guard let other else { continue }
            known = true
            if other.hasPrefix("H") { count += 1 }
        }
        return known ? count : nil
    }

    func otherPart(_ a: Int, isWater: Bool, residueName: String = "") -> Part {
        let element = atoms.elements[a].atomicNumber
        let p = atoms.positions[a]
        let around = heavy(a)
        let given = hydrogens(a)
        switch element {
        case 8:
            if isWater || around.isEmpty { return Part(acceptor: true, donor: given.isEmpty ? .free : .placed(given)) }
            if !given.isEmpty { return Part(acceptor: true, donor: .placed(given)) }
            guard around.count == 1, !hydrogensGiven[a] else { return Part(acceptor: true) }  // an ether or ester oxygen
            let x = around[0]
            // Oxygen on a P, S or N (phosphate, sulfate, nitro), or a C=O: no hydrogen.
            let partner = atoms.elements[x].atomicNumber
            if partner != 6 || distance(p, atoms.positions[x]) < 1.30 { return Part(acceptor: true) }
            return Part(acceptor: true, donor: isSp2(x) ? planarHydrogens(a, count: 2) : staggeredHydrogens(a, count: 1))
        case 7:
            if !given.isEmpty {
                // With its hydrogens in the file: an acceptor only with a lone pair left.
                return Part(acceptor: around.count + given.count <= 3 && !isPlanar(a), donor: .placed(given))
            }
            // Without a hydrogen in a file that gives them: an acceptor if a lone pair is left.
            if hydrogensGiven[a] { return Part(acceptor: around.count < 3 || (around.count == 3 && !isPlanar(a))) }
            switch around.count {
            case 0: return Part(acceptor: true, donor: .free)  // ammonia, ammonium
            case 1:
                let x = around[0], bond = distance(p, atoms.positions[x])
                if bond < 1.20 { return Part(acceptor: true) }  // a nitrile
                if bond < 1.30 { return Part(acceptor: true, donor: planarHydrogens(a, count: 1)) }  // an imine
                // An amide's or aniline's NH₂ lies in its neighbour's plane; an amine's turns.
                return isSp2(x) ? Part(donor: planarHydrogens(a, count: 2)) : Part(acceptor: true, donor: staggeredHydrogens(a, count: 3))
            case 2:
                // The dictionary knows whether it carries a hydrogen, where a low-resolution ring's
                // angles blur the difference (1OSN's ADP N7 at 108°).
                let known = dictionaryHydrogens(a, residueName: residueName)
                if known == 0 { return Part(acceptor: true) }
                if let ring = ringSize(a) {
                    if known != nil { return Part(donor: planarHydrogens(a, count: 1)) }
                    // In a ring the angle at the nitrogen tells: a hydrogen widens it (pyrrole's N–H
                    // about 109°, against 105° without, in five-membered rings; 125° against 117°
                    // in six-membered ones).
                    let angle = degrees(between: atoms.positions[around[0]] - p, atoms.positions[around[1]] - p)
                    let protonated = ring == 5 ? angle > 107 : angle > 121
                    return protonated ? Part(donor: planarHydrogens(a, count: 1)) : Part(acceptor: true)
                }
                let shortest = around.map { distance(p, atoms.positions[$0]) }.min() ?? 2
                if shortest < 1.33 && known == nil { return Part(acceptor: true) }  // an imine
                return isSp2(around[0]) || isSp2(around[1])
                    ? Part(donor: planarHydrogens(a, count: 1))  // pyrrole-like, an amide N–H
                    : Part(acceptor: true, donor: tetrahedralPlaces(a))  // a secondary amine
            case 3: return Part(acceptor: !isPlanar(a))  // a tertiary amine has a lone pair; an amide N none
            default: return Part()
            }
        case 9: return Part()  // fluorine: a halogen here, not an acceptor (as PLIP)
        default: return Part()
        }
    }

    /// The size of the smallest ring (5 or 6) through an atom, if any: a walk back to it along bonds.
    func ringSize(_ a: Int) -> Int? {
        var paths: [[Int]] = [[a]]
        for length in 1...6 {
            var next: [[Int]] = []
            for path in paths {
                guard let last = path.last else { continue }
                for b in heavy(last) {
                    if b == a, length >= 5 { return length }
                    if b != a, !path.contains(b), length < 6 { next.append(path + [b]) }
                }
            }
            paths = next
        }
        return nil
    }

    /// An atom with three heavy neighbours whose bonds lie in one plane (angles summing to ~360°).
    func isPlanar(_ a: Int) -> Bool {
        let around = heavy(a)
        guard around.count == 3 else { return around.count < 3 && around.count > 0 && around.contains(where: isSp2) }
        let p = atoms.positions[a]
        let v = around.map { atoms.positions[$0] - p }
        let sum = degrees(between: v[0], v[1]) + degrees(between: v[1], v[2]) + degrees(between: v[0], v[2])
        return sum > 350
    }

    /// A carbon (or nitrogen) that is trigonal: three neighbours in a plane, or a double bond's length.
    func isSp2(_ a: Int) -> Bool {
        let around = heavy(a)
        let p = atoms.positions[a]
        if around.count == 3 {
            let v = around.map { atoms.positions[$0] - p }
            return degrees(between: v[0], v[1]) + degrees(between: v[1], v[2]) + degrees(between: v[0], v[2]) > 350
        }
        return around.contains { distance(p, atoms.positions[$0]) < (atoms.elements[$0].atomicNumber == 8 ? 1.30 : 1.40) }
    }
}
