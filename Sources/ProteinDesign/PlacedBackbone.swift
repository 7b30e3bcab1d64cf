/// A backbone the builder has placed (`Builder.run`): the chain, its elements and the coils
/// between them with what the search found. What comes after reads it and changes nothing: the
/// side chains packed on it (`SideChainPacker`), the structure written from it (DesignStructure.swift)
/// and the verdict on it (DesignVerdict.swift).
struct PlacedBackbone {
    let spec: DesignSpec
    let chain: BackboneChain
    let elements: [SecondaryElement]
    let junctions: [Junction]
    /// The piece each residue belongs to.
    let pieceOfResidue: [Int]
    /// The backbone's atoms (and Cβ), for the side chains' clashes.
    let clashGrid: AtomGrid

    /// Side chains are packed on the backbone as it stands.
    var packer: SideChainPacker { SideChainPacker(chain: chain, clashGrid: clashGrid) }
}

extension Builder {
    /// The backbone as the search left it.
    var placed: PlacedBackbone {
        PlacedBackbone(spec: spec, chain: chain, elements: elements, junctions: junctions, pieceOfResidue: pieceOfResidue,
                       clashGrid: clashGrid)
    }
}
