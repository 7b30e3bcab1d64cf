/// The geometric criteria interactions are found by: PLIP's (Salentin et al. 2015, "PLIP: fully
/// automated protein–ligand interaction profiler", Nucleic Acids Res. 43, W443–W447; the thresholds
/// as PLIP 3.0 publishes them, each from the literature it cites, widened by PLIP for lower-quality
/// structures). Distances in Å, angles in degrees.
public struct InteractionCriteria: Sendable, Equatable {
    /// A binding site's residues: those with any atom this near any ligand atom.
    public var siteRadius: Float = 4.5
    /// Atoms looked at around a ligand (PLIP's binding-site distance).
    public var searchRadius: Float = 7.5
    /// No interaction is nearer than this (overlapping atoms are an error in the file).
    public var minimumDistance: Float = 0.5
    /// Carbon–carbon, both carbons bonded to carbon or hydrogen only.
    public var hydrophobicMax: Float = 4.0
    /// Donor–acceptor (Hubbard & Haider 2001, + 0.6 Å).
    public var hydrogenBondMax: Float = 4.1
    /// The angle at the hydrogen, donor–H···acceptor, at least.
    public var hydrogenBondAngleMin: Float = 100
    /// Ring centre to ring centre (McGaughey et al. 1998).
    public var stackingMax: Float = 5.5
    /// Rings' normals within this of parallel (0°) or perpendicular (90°).
    public var stackingAngleDeviation: Float = 30
    /// One ring's centre projected on the other's plane, at most this far from its centre.
    public var stackingOffsetMax: Float = 2.0
    /// Charge to ring centre (Gallivan & Dougherty 1999).
    public var cationPiMax: Float = 6.0
    /// Centre of charge to centre of charge (Barlow & Thornton 1983, + 1.5 Å).
    public var saltBridgeMax: Float = 5.5
    /// Acceptor–halogen (Auffinger et al. 2004, + 0.5 Å), and the angles at each, within a deviation.
    public var halogenMax: Float = 4.0
    public var halogenAcceptorAngle: Float = 120
    public var halogenDonorAngle: Float = 165
    public var halogenAngleDeviation: Float = 30
    /// Water oxygen to the polar atoms it bridges (Jiang et al. 2005), the angle acceptor–water–H
    /// (omega) and water–H–donor (theta).
    public var waterBridgeMin: Float = 2.5
    public var waterBridgeMax: Float = 4.1
    public var waterOmegaMin: Float = 71
    public var waterOmegaMax: Float = 140
    public var waterThetaMin: Float = 100
    /// Metal to coordinating atom (Harding 2001).
    public var metalMax: Float = 3.0
    /// A 5- or 6-membered ring is aromatic when every atom's local plane is within this of every other's.
    public var ringPlanarityDeviation: Float = 5

    public init() {}

    /// PLIP's criteria, with the binding site at 4.5 Å.
    public static let standard = InteractionCriteria()
}
