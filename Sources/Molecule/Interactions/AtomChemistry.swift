import Foundation
import Geometry

/// The chemistry interactions read from one model: which atoms count (one alternate location), who
/// is bonded to whom, and each polar atom's part: donor (with where its hydrogens are or may be),
/// acceptor, both or neither. Amino acids are typed by their atom names (standard chemistry at
/// pH 7: Asp and Glu charged, Lys NZ charged, histidine's ring nitrogens both donor and acceptor as
/// the tautomer is unknown); other residues by element, bonds and bond lengths (what a file without
/// hydrogens allows).
struct AtomChemistry {
    let model: Model
    let residueOf: [Int32]
    /// Atoms of the first alternate location (or none), the only ones interactions use.
    let kept: [Bool]
    /// Bonded neighbours of each atom (all atoms, hydrogens included), but for bonds to metals.
    let neighbours: [[Int32]]
    /// Bonds to metals (a file's LINK records, or found by distance): they join residues into one
    /// ligand (Mg·ATP) without counting in the partners' chemistry.
    let metalLinks: [(Int, Int)]
    let isAcceptor: [Bool]
    /// Donors and how their hydrogens stand.
    let donors: [Int: Donor]
    /// The typing the donors and acceptors came from (its planarity tests serve the charged groups).
    let typing: PolarTyping

    /// A donor's hydrogens: those in the file or where their geometry puts them (`PolarTyping`), or,
    /// on an atom bonded to nothing heavy (water, ammonia), free to point anywhere.
    enum Donor {
        case placed([SIMD3<Float>])
        /// A hydrogen pointing straight at whatever it is asked about.
        case free
    }

    init(model: Model, bonds: BondList) {
        self.model = model
        residueOf = model.residueIndexOfAtoms()
        let atoms = model.atoms
        var kept = [Bool](repeating: true, count: atoms.count)
        for residue in model.residues {
            var first: UInt8 = 0
            for a in residue.atomRange where atoms.altLocs[a] != 0 {
                if first == 0 { first = atoms.altLocs[a] }
                if atoms.altLocs[a] != first { kept[a] = false }
            }
        }
        self.kept = kept
        var neighbours = [[Int32]](repeating: [], count: atoms.count)
        var metalLinks: [(Int, Int)] = []
        for k in 0..<bonds.count {
            let i = Int(bonds.a[k]), j = Int(bonds.b[k])
            guard kept[i], kept[j] else { continue }
            // A metal's bonds are coordination, not the chemistry that types its partners.
            if LigandFinder.metals.contains(atoms.elements[i].atomicNumber) || LigandFinder.metals.contains(atoms.elements[j].atomicNumber) {
                metalLinks.append((i, j)); continue
            }
            neighbours[i].append(Int32(j)); neighbours[j].append(Int32(i))
        }
        self.neighbours = neighbours
        self.metalLinks = metalLinks
        var isAcceptor = [Bool](repeating: false, count: atoms.count)
        var donors: [Int: Donor] = [:]
        var hydrogensGiven = [Bool](repeating: false, count: atoms.count)
        for residue in model.residues where residue.atomRange.contains(where: { kept[$0] && atoms.elements[$0].atomicNumber == 1 }) {
            for a in residue.atomRange { hydrogensGiven[a] = true }
        }
        let typing = PolarTyping(atoms: atoms, neighbours: neighbours, hydrogensGiven: hydrogensGiven)
        self.typing = typing
        for residue in model.residues {
            for a in residue.atomRange where kept[a] {
                let part = residue.kind == .aminoAcid
                    ? typing.aminoAcidPart(a, residueName: residue.name)
                    : typing.otherPart(a, isWater: residue.isWater, residueName: residue.name)
                isAcceptor[a] = part.acceptor
                if let donor = part.donor { donors[a] = donor }
            }
        }
        self.isAcceptor = isAcceptor
        self.donors = donors
    }

    var positions: [SIMD3<Float>] { model.atoms.positions }
    func element(_ a: Int) -> UInt8 { model.atoms.elements[a].atomicNumber }
    func heavyNeighbours(_ a: Int) -> [Int] {
        neighbours[a].lazy.map(Int.init).filter { model.atoms.elements[$0].atomicNumber != 1 }
    }

    /// A carbon bonded to carbons and hydrogens only (PLIP's hydrophobic atom).
    func isHydrophobicCarbon(_ a: Int) -> Bool {
        element(a) == 6 && neighbours[a].allSatisfy { [1, 6].contains(element(Int($0))) }
    }

    /// The best angle at the hydrogen, donor–H···acceptor, that `donor`'s hydrogens make with a point,
    /// and that hydrogen's place.
    func bestHydrogen(_ donor: Int, toward target: SIMD3<Float>) -> (angle: Float, hydrogen: SIMD3<Float>)? {
        guard let kind = donors[donor] else { return nil }
        let d = positions[donor]
        let candidates: [SIMD3<Float>]
        switch kind {
        case .placed(let hydrogens): candidates = hydrogens
        case .free: candidates = [d + normalized(target - d)]
        }
        return candidates.map { (angle: degrees(between: d - $0, target - $0), hydrogen: $0) }.max { $0.angle < $1.angle }
    }
}

func degrees(between a: SIMD3<Float>, _ b: SIMD3<Float>) -> Float {
    let la = length(a), lb = length(b)
    guard la > 1e-6, lb > 1e-6 else { return 0 }
    return acos(min(1, max(-1, dot(a, b) / (la * lb)))) * 180 / .pi
}

func anyPerpendicular(_ u: SIMD3<Float>) -> SIMD3<Float> {
    let other: SIMD3<Float> = abs(u.x) < 0.9 ? [1, 0, 0] : [0, 1, 0]
    return normalized(cross(u, other))
}
