/// The descriptive PDB records (TITLE, COMPND, SOURCE, KEYWDS, AUTHOR, JRNL, SEQRES) turned into
/// metadata and entities once all lines are read.
extension PDBParser {
    mutating func finishMetadata() {
        var md = structure.metadata
        md.title = titleParts.joined(separator: " ").collapsingSpaces
        md.keywords = keywds.split(separator: ",").map { String($0).trimmingSpaces }.filter { !$0.isEmpty }
        md.authors = PDBParser.splitAuthors(author)
        md.componentNames = hetnam.mapValues(\.collapsingSpaces)
        let compounds = PDBParser.specification(compnd)
        md.compounds = compounds.compactMap { $0["MOLECULE"] }
        md.sourceOrganisms = Array(Set(PDBParser.specification(source).compactMap { $0["ORGANISM_SCIENTIFIC"] })).sorted()
        if !jrnl.isEmpty {
            var c = Citation()
            c.title = (jrnl["TITL"] ?? "").collapsingSpaces
            c.authors = PDBParser.splitAuthors(jrnl["AUTH"] ?? "")
            c.doi = (jrnl["DOI"] ?? "").trimmingSpaces
            c.pubMedID = (jrnl["PMID"] ?? "").trimmingSpaces
            let ref = (jrnl["REF"] ?? "").collapsingSpaces
            if !ref.isEmpty, !ref.hasPrefix("TO BE PUBLISHED") {
                // "J.MOL.BIOL. V. 224 1 1992": journal, volume, first page, year.
                let vol = ref.firstRange(of: " V. ")
                c.journal = vol.map { String(ref[..<$0.lowerBound]).trimmingSpaces } ?? ref
                if let vol {
                    let rest = ref[vol.upperBound...].split(separator: " ")
                    if rest.count >= 3 { c.volume = String(rest[0]); c.firstPage = String(rest[1]); c.year = Int(rest[rest.count - 1]) }
                }
            }
            md.citation = c
        }
        structure.metadata = md
        buildEntities(compounds)
        structure.assemblies = parseRemark350()
    }

    static func splitAuthors(_ s: String) -> [String] {
        s.split(separator: ",").map { String($0).trimmingSpaces }.filter { !$0.isEmpty }
    }

    /// COMPND/SOURCE specification lists: "MOL_ID: 1; MOLECULE: X; CHAIN: A, B;" → one dictionary per MOL_ID.
    static func specification(_ text: String) -> [[String: String]] {
        var out: [[String: String]] = []
        for item in text.split(separator: ";") {
            guard let colon = item.firstIndex(of: ":") else {
                // A continuation of the previous value that contained a ';'.
                continue
            }
            let key = item[..<colon].trimming(" ")
            let value = String(item[item.index(after: colon)...]).collapsingSpaces
            if key == "MOL_ID" || out.isEmpty { out.append([:]) }
            out[out.count - 1][key] = value
        }
        return out
    }

    /// Polymer entities from SEQRES (chains with the same sequence share one), then one entity per
    /// ligand name, then water, with chain ids from the first model.
    mutating func buildEntities(_ compounds: [[String: String]]) {
        guard let model = structure.models.first else { return }
        var entities: [Entity] = []
        var entityOfChain: [String: Int] = [:]
        var bySequence: [[String]: Int] = [:]
        // Chains named in COMPND give descriptions.
        var descriptionOfChain: [String: String] = [:]
        for c in compounds {
            guard let mol = c["MOLECULE"] else { continue }
            for ch in (c["CHAIN"] ?? "").split(separator: ",") { descriptionOfChain[ch.trimming(" ")] = mol }
        }
        var sequences = seqres
        if sequences.isEmpty {
            // No SEQRES: use the modelled polymer residues.
            for ch in model.chains {
                let names = ch.residueRange.map { model.residues[$0].name }.filter { ResidueKind.of($0) == .aminoAcid || ResidueKind.of($0) == .nucleotide }
                if names.count >= 2 { sequences.append((ch.id, names)) }
            }
        }
        for (chain, names) in sequences {
            if let e = bySequence[names] { entities[e].chainIDs.append(chain); entityOfChain[chain] = e; continue }
            var entity = Entity(id: String(entities.count + 1), kind: .polymer)
            entity.monomers = names
            entity.polymerType = PDBParser.polymerType(names)
            entity.description = descriptionOfChain[chain] ?? ""
            entity.chainIDs = [chain]
            bySequence[names] = entities.count
            entityOfChain[chain] = entities.count
            entities.append(entity)
        }
        var ligandEntity: [String: Int] = [:]
        for ch in model.chains {
            for r in ch.residueRange {
                let res = model.residues[r]
                let kind = res.kind
                if kind == .aminoAcid || kind == .nucleotide, entityOfChain[ch.id] != nil { continue }
                if (kind == .aminoAcid || kind == .nucleotide) && !model.atoms.isHetero[res.atomRange.lowerBound] { continue }
                let key = kind == .water ? "HOH" : res.name
                if ligandEntity[key] == nil {
                    var e = Entity(id: String(entities.count + 1), kind: kind == .water ? .water : .nonPolymer)
                    e.monomers = [res.name]
                    e.description = kind == .water ? "water" : res.name
                    ligandEntity[key] = entities.count
                    entities.append(e)
                }
                if let i = ligandEntity[key], !entities[i].chainIDs.contains(ch.id) { entities[i].chainIDs.append(ch.id) }
            }
        }
        structure.entities = entities
        for m in structure.models.indices {
            for c in structure.models[m].chains.indices {
                structure.models[m].chains[c].entityIndex = entityOfChain[structure.models[m].chains[c].id]
            }
        }
    }

    static func polymerType(_ names: [String]) -> PolymerType {
        var aa = 0, dna = 0, rna = 0
        for n in names {
            switch ResidueKind.of(n) {
            case .aminoAcid: aa += 1
            case .nucleotide: if n.hasPrefix("D") && n.count == 2 { dna += 1 } else { rna += 1 }
            default: break
            }
        }
        if aa >= dna + rna { return aa > 0 ? .protein : .other }
        return dna > 0 && rna > 0 ? .hybrid : dna > 0 ? .dna : .rna
    }
}
