import Geometry
import Foundation
import Molecule

/// The verdict on a built design: whether it holds together, why not, and the motifs it forms.
extension PlacedBackbone {

    func pieceName(_ p: Int) -> String { "\(spec.pieces[p].kind.displayName) (piece \(p + 1))" }

    /// The coil pieces between two shaped pieces, by their names: "Flex coil (piece 2)", "Flex coil and Rigid coil (pieces 2–3)".
    func coilName(_ pieces: [Int]) -> String {
        guard let first = pieces.first else { return "coil" }
        if pieces.count == 1 { return pieceName(first) }
        let kinds = Set(pieces.map { spec.pieces[$0].kind.displayName }).sorted()
        return "\(kinds.joined(separator: " and ")) (pieces \(first + 1)–\((pieces.last ?? first) + 1))"
    }

    func elementName(_ e: SecondaryElement) -> String {
        e.pieces.count == 1 ? pieceName(e.pieces[0]) : "\(e.kind.displayName) (pieces \(e.pieces.map { String($0 + 1) }.joined(separator: "–")))"
    }

    func verdict(secondaryStructure: [SecondaryStructureCode], sideChains: SideChains, libraryIDs: Set<String>) -> Verdict {
        var reasons: [String] = []
        // The residues each reason is about (the clash, the strands with no partner), lit in the refused model.
        var marked: [Range<Int>] = []
        func near(_ r: Int) -> Range<Int> { max(0, r - 1)..<min(chain.count, r + 2) }
        if elements.isEmpty {
            reasons.append("a chain of coils has no shape of its own to hold together: add a Helix or a Sheet")
        }
        // Two strands with nothing between them are one straight strand, which pairs with nothing.
        for p in spec.pieces.indices.dropFirst() where spec.pieces[p].kind == .strand && spec.pieces[p - 1].kind == .strand {
            marked += [spec.pieceRanges[p - 1], spec.pieceRanges[p]]
            reasons.append("\(pieceName(p - 1)) and \(pieceName(p)) have no coil between them, so they make one straight strand with no partner: put a Flex coil of 2 residues between pieces \(p) and \(p + 1) so the chain turns back and the two lie side by side (a β-hairpin)")
        }
        for var junction in junctions {
            // A hairpin holds only if DSSP sees its strands as a sheet: at least 80 % of their residues E.
            if let partner = junction.hairpinPartner(in: elements), let e = junction.element {
                let strands = Array(partner.residues) + Array(elements[e].residues)
                let sheet = strands.filter { secondaryStructure[$0] == .strand }.count
                if Double(sheet) < 0.8 * Double(strands.count) { junction.paired = false }
            }
            guard junction.clashes > 0 || !junction.packed || !junction.paired else { continue }
            let coilWords = junction.coil.isEmpty || junction.element == nil ? "with no coil before it"
                : "after the \(junction.coil.count)-residue \(coilName(junction.coilPieces))"
            let subject = junction.element.map { elementName(elements[$0]) } ?? "the final coil"
            let subjectResidues = junction.element.map { elements[$0].residues } ?? junction.coil
            if junction.clashes > 0 {
                marked += [subjectResidues] + (junction.clashPartner.map { [near($0)] } ?? [])
                let partner = junction.clashPartner.map { " into \(pieceName(pieceOfResidue[$0]))" } ?? ""
                reasons.append(junction.coil.isEmpty ? "\(subject) clashes\(partner)"
                               : junction.element == nil ? "\(subject) clashes\(partner), whatever shape it takes"
                               : "\(subject) clashes\(partner) \(coilWords), whatever shape the coil takes")
            } else if !junction.packed {
                marked.append(subjectResidues)
                reasons.append("\(subject) does not pack against the pieces before it \(coilWords)")
            } else if !junction.paired, let e = junction.element {
                marked += [elements[e - 1].residues, elements[e].residues]
                reasons.append("\(subject) does not pair with \(elementName(elements[e - 1])): across the \(junction.coil.count)-residue \(coilName(junction.coilPieces)) their backbones do not line up to hold each other with hydrogen bonds, as the two sides of a sheet do")
            }
            if let e = junction.element, e > 0 {
                marked.append(junction.coil.isEmpty ? near(elements[e].residues.lowerBound) : junction.coil)
                if junction.coil.isEmpty {
                    reasons.append("the chain cannot turn without a coil between two pieces: add one")
                } else if junction.coil.count < 2 {
                    reasons.append("the \(junction.coil.count)-residue \(coilName(junction.coilPieces)) is too short to turn the chain back (a turn takes at least 2 residues)")
                } else if junction.coilPieces.allSatisfy({ spec.pieces[$0].kind == .rigidCoil }) {
                    reasons.append("the \(coilName(junction.coilPieces)) holds the chain straight; a Flex coil can turn it")
                }
            }
        }
        // The backbone holds, but a side chain finds no rotamer with room for it.
        if reasons.isEmpty, let (r, partner) = sideChains.worst {
            func residue(_ i: Int) -> String { "\(Self.residueNames[chain.sequence[i]]?.capitalized ?? "residue") \(i + 1)" }
            marked += [near(r), near(partner)]
            reasons.append("the side chain of \(residue(r)) in \(pieceName(pieceOfResidue[r])) has no room against \(residue(partner)) in \(pieceName(pieceOfResidue[partner])), whatever rotamer it takes")
        }
        let isValid = reasons.isEmpty
        let message = isValid
            ? "Congratulations, you have created a new protein made of \(spec.name)"
            : "Sorry, this combination cannot be made"
        return Verdict(isValid: isValid, message: message, reasons: reasons,
                       motifs: isValid ? motifs(libraryIDs: libraryIDs) : [], marked: isValid ? [] : Verdict.merged(marked))
    }

    /// Super-secondary motifs the built design contains.
    func motifs(libraryIDs: Set<String>) -> [Motif] {
        var found: [Motif] = []
        func add(_ name: String, _ parts: [SecondaryElement], note: String? = nil) {
            let pieces = parts.flatMap(\.pieces).map { $0 + 1 }
            let example = Motif.examples[name].flatMap { libraryIDs.contains($0.id) ? $0 : nil }
            found.append(Motif(name: name, pieces: pieces, example: example, note: note))
        }
        // Strands in a row, each paired with the one before as a hairpin: two make a β-hairpin,
        // three or more a β-meander.
        var meander: [SecondaryElement] = []
        // Elements paired with the element before them as a β-hairpin.
        let hairpinned = Set(junctions.compactMap { j in j.element.flatMap { j.hairpinPartner(in: elements) != nil && j.bridges >= pairingBridges ? $0 : nil } })
        func endMeander() {
            if meander.count >= 3 { add("β-meander", meander) }
            meander = []
        }
        for junction in junctions {
            guard let e = junction.element, e > 0 else { continue }
            let a = elements[e - 1], b = elements[e]
            let turn = junction.coil.count
            if a.kind == .helix && b.kind == .helix && junction.packed && turn >= 2 {
                add(turn <= 5 ? "helix-turn-helix" : "helical hairpin", [a, b])
            }
            if hairpinned.contains(e) {
                add("β-hairpin", [a, b])
                if meander.isEmpty { meander = [a] }
                meander.append(b)
            } else {
                endMeander()
            }
            if e >= 2, a.kind == .helix, b.kind == .strand, elements[e - 2].kind == .strand,
               chain.bridges(between: b.residues, and: elements[e - 2].residues, placed: chain.count, parallel: true) >= pairingBridges {
                add("β-α-β", [elements[e - 2], a, b], note: isRightHanded(elements[e - 2], a, b)
                    ? "a right-handed crossover, as nature almost always makes them"
                    : "a left-handed crossover: nature almost always makes them right-handed")
            }
            // A Greek key: three strands in a meander, and a fourth that comes back to pair with the first.
            if e >= 3, b.kind == .strand, a.kind == .strand, hairpinned.contains(e - 2), hairpinned.contains(e - 1), !hairpinned.contains(e),
               chain.bridges(between: b.residues, and: elements[e - 3].residues, placed: chain.count) >= pairingBridges {
                add("Greek key", Array(elements[(e - 3)...e]))
            }
        }
        endMeander()
        return found
    }

    /// Whether a β-α-β unit's crossover is right-handed: going along the strands, the chain turns
    /// from the first strand over to the helix and on to the second strand anticlockwise, seen from
    /// ahead (a right-handed screw).
    func isRightHanded(_ first: SecondaryElement, _ helix: SecondaryElement, _ second: SecondaryElement) -> Bool {
        func centre(_ e: SecondaryElement) -> SIMD3<Double> { e.residues.reduce(SIMD3<Double>.zero) { $0 + chain.ca[$1] } / Double(e.residues.count) }
        guard let start = first.residues.first, let end = first.residues.last else { return true }
        let along = chain.ca[end] - chain.ca[start]
        let across = centre(second) - centre(first)
        let up = centre(helix) - (centre(first) + centre(second)) / 2
        return dot(along, cross(across, up)) < 0
    }
}
