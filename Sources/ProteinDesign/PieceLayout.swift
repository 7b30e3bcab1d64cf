import Foundation
import Geometry
import Molecule

/// The pieces of a design before they are joined, as the original game showed them in the AR
/// scene: each piece built alone with its ideal geometry, as its own chain, laid out in a row.
///
/// Nothing here is random or searched, so a spec always gives the same structure (and its URL the
/// same model bytes): helices, strands and rigid coils take their ideal torsions, and a flexible
/// coil, which has none, takes one fixed draw from the coil regions of the Ramachandran plot.
extension ProteinDesigner {
    /// Empty space between two neighbouring pieces' bounding boxes, Å: about two residues' width,
    /// so each piece reads as its own object, not as part of its neighbour.
    public static let pieceGap = 8.0

    /// The spec's pieces, not yet joined: piece i is chain i (A, B, …, then two-character ids),
    /// residues numbered as in the joined design. Each piece stands along y (its first residue at the
    /// bottom), the row runs along x in the pieces' order, and the whole row is centred on the origin.
    /// HELIX/SHEET records come from the pieces' kinds, so a lone strand still shows as an arrow.
    public static func pieceLayout(_ spec: DesignSpec) -> Structure {
        var model = Model(number: 1)
        var structure = Structure()
        var records: [SecondaryStructureRecord] = []
        var serial: Int32 = 1
        // Each piece upright and centred on its own origin, then shifted into the row.
        let placed = zip(spec.pieces, spec.pieceRanges).map { piece, range in
            upright(idealBackbone(piece.kind, sequence: Array(spec.sequence[range])))
        }
        let widths = placed.map { atoms in (atoms.map(\.position.x).min() ?? 0, atoms.map(\.position.x).max() ?? 0) }
        let rowWidth = widths.reduce(0) { $0 + ($1.1 - $1.0) } + pieceGap * Double(max(0, placed.count - 1))
        var left = -rowWidth / 2
        for (p, (piece, range)) in zip(spec.pieces, spec.pieceRanges).enumerated() {
            let shift = SIMD3(left - widths[p].0, 0, 0)
            left += widths[p].1 - widths[p].0 + pieceGap
            let chainID = pieceChainID(p)
            let residueStart = Int32(model.residues.count)
            var monomers: [String] = []
            var atoms = placed[p][...]
            for r in range {
                let name = PlacedBackbone.residueNames[spec.sequence[r]] ?? "UNK"
                monomers.append(name)
                let start = Int32(model.atoms.count)
                while let atom = atoms.first, atom.residue == r - range.lowerBound {
                    atoms.removeFirst()
                    let q = atom.position + shift
                    model.atoms.append(Atom(name: atom.name, element: atom.element, serial: serial,
                                            position: SIMD3<Float>(Float(q.x), Float(q.y), Float(q.z))))
                    serial += 1
                }
                model.residues.append(Residue(name: name, number: Int32(r + 1), sequenceIndex: Int32(r - range.lowerBound),
                                              atomStart: start, atomEnd: Int32(model.atoms.count)))
            }
            model.chains.append(Chain(id: chainID, labelID: chainID, entityIndex: p, residueStart: residueStart,
                                      residueEnd: Int32(model.residues.count)))
            var entity = Entity(id: String(p + 1), kind: .polymer)
            entity.polymerType = .protein
            entity.description = "piece \(p + 1): \(piece.kind.displayName)"
            entity.monomers = monomers
            entity.chainIDs = [chainID]
            structure.entities.append(entity)
            let first = ResidueRef(chainID: chainID, number: Int32(range.lowerBound + 1))
            let last = ResidueRef(chainID: chainID, number: Int32(range.upperBound))
            switch piece.kind {
            case .helix: records.append(SecondaryStructureRecord(kind: .helix(.alpha), start: first, end: last))
            case .strand: records.append(SecondaryStructureRecord(kind: .strand(sheetID: chainID, sense: 0), start: first, end: last))
            case .flexibleCoil, .rigidCoil: break
            }
        }
        structure.metadata.id = "PIECES"
        structure.metadata.title = "Pieces, not yet joined: \(spec.name)"
        structure.metadata.experimentalMethods = ["THEORETICAL MODEL"]
        structure.metadata.authors = ["ProteinAR builder"]
        structure.models = [model]
        structure.secondaryStructureRecords = records
        return structure
    }

    /// Chain ids for any number of pieces (a design may have up to 2,000 one-residue pieces):
    /// A…Z, a…z, 0…9, then two characters.
    static func pieceChainID(_ index: Int) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        if index < alphabet.count { return String(alphabet[index]) }
        let rest = index - alphabet.count
        return String(alphabet[(rest / alphabet.count) % alphabet.count]) + String(alphabet[rest % alphabet.count])
    }

    /// One fixed seed for every flexible coil: the same coil piece always looks the same.
    static let pieceCoilSeed: UInt64 = 0xC011_0001

    /// A piece on its own: its backbone from its ideal torsions (or the fixed coil draw).
    static func idealBackbone(_ kind: PieceKind, sequence: [Character]) -> BackboneChain {
        var chain = BackboneChain(sequence: sequence)
        var random = SeededGenerator(seed: pieceCoilSeed)
        for i in 0..<chain.count {
            if let (phi, psi) = kind.idealTorsions {
                chain.phi[i] = radians(phi)
                chain.psi[i] = radians(psi)
            } else {
                (chain.phi[i], chain.psi[i]) = RamachandranRegion.sample(RamachandranRegion.regions(for: sequence[i]), using: &random)
            }
        }
        chain.build(0..<chain.count)
        return chain
    }

    /// The chain's atoms turned so that it stands along y, centred on the origin: the axis runs from
    /// the mean of its first four Cα to the mean of its last four (a helix turn is 3.6 residues, so
    /// these means lie near a helix's axis), and its first Cα faces +z, towards the viewer.
    static func upright(_ chain: BackboneChain) -> [(residue: Int, name: String, element: Molecule.Element, position: SIMD3<Double>)] {
        let count = chain.count
        let span = min(4, count)
        func mean(_ points: ArraySlice<SIMD3<Double>>) -> SIMD3<Double> { points.reduce(.zero, +) / Double(max(1, points.count)) }
        let start = mean(chain.ca[0..<span]), end = mean(chain.ca[(count - span)..<count])
        var atoms: [(residue: Int, name: String, element: Molecule.Element, position: SIMD3<Double>)] = []
        for r in 0..<count {
            // Side chains as in the design, each at its most common rotamer (a lone piece has
            // nothing to avoid).
            for atom in chain.heavyAtoms(of: r, sideChain: chain.sideChain(r, chis: chain.commonRotamer(r))) {
                atoms.append((r, atom.name, atom.element, atom.position))
            }
        }
        let centre = mean(atoms.map(\.position)[...])
        let along = end - start
        let y = length(along) > 1e-6 ? normalized(along) : SIMD3<Double>(0, 1, 0)
        let facing = chain.ca[0] - centre
        var z = facing - dot(facing, y) * y
        if length(z) < 1e-6 {
            // The first Cα on the axis (a one-residue piece): any direction across it will do.
            let across = abs(y.x) < 0.9 ? SIMD3<Double>(1, 0, 0) : SIMD3<Double>(0, 0, 1)
            z = across - dot(across, y) * y
        }
        z = normalized(z)
        let x = cross(y, z)
        return atoms.map { atom in
            let p = atom.position - centre
            return (atom.residue, atom.name, atom.element, SIMD3(dot(p, x), dot(p, y), dot(p, z)))
        }
    }
}
