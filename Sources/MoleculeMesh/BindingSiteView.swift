import Geometry
import Molecule
import SceneExport

/// The binding-site view (`site=AP5` or `site=A:215`): the ligand in ball and stick, the residues of
/// its site as sticks, the rest of the molecule as a faded cartoon, and each interaction as a dashed
/// tube in its kind's colour (`InteractionKind.color`), from atom to atom or from a ring's or a
/// charged group's centre. Any model of an ensemble: its own interactions, so the site moves with it.
struct BindingSiteView {
    let ligand: [Bool]
    let site: [Bool]
    let interactions: [Interaction]

    init(_ structure: Structure, model: Model, modelIndex: Int, query: String) throws {
        let sites = InteractionFinder.sites(in: structure, ligand: query, modelIndex: modelIndex)
        guard let found = sites.first else {
            let all = InteractionReport(structure, sites: InteractionFinder.sites(in: structure)).sites
            let names = all.prefix(12).compactMap { $0.ligand.first.map { "\($0.residue) \($0.chain):\($0.number)" } }
            throw MeshOptionError("site '\(query.prefix(40))' names no ligand; "
                + (names.isEmpty ? "this structure has none" : "its ligands: \(names.joined(separator: ", "))"))
        }
        var ligand = [Bool](repeating: false, count: model.atoms.count)
        for r in found.residues { for a in model.residues[r].atomRange { ligand[a] = true } }
        var site = [Bool](repeating: false, count: model.atoms.count)
        for r in found.siteResidues { for a in model.residues[r].atomRange { site[a] = true } }
        self.ligand = ligand
        self.site = site
        interactions = found.interactions
    }

    /// Dash and gap lengths and the tube's radius, in Å.
    static let dash: Float = 0.3, gap: Float = 0.2, radius: Float = 0.07

    /// The interactions as dashed tubes (no atom drawn: their vertices carry no feature id).
    func dashes(_ model: Model) -> TriangleMesh {
        let p = model.atoms.positions
        func centre(_ atoms: [Int]) -> SIMD3<Float> { atoms.reduce(SIMD3<Float>.zero) { $0 + p[$1] } / Float(max(atoms.count, 1)) }
        var builder = MeshBuilder(detail: 1)
        for i in interactions {
            // A water bridge runs through its water.
            let stops = i.water.map { [centre(i.from), p[$0], centre(i.to)] } ?? [centre(i.from), centre(i.to)]
            let color = SRGB.linear(hex: i.kind.color)
            for (a, b) in zip(stops, stops.dropFirst()) {
                let length = distance(a, b)
                guard length > 1e-3 else { continue }
                let step = (b - a) / length
                var at: Float = 0
                while at < length {
                    let end = min(at + Self.dash, length)
                    builder.addCylinder(from: a + step * at, to: a + step * end, radius: Self.radius, colorA: color, colorB: color,
                                        featureA: TriangleMesh.noFeature, featureB: TriangleMesh.noFeature)
                    at = end + Self.gap
                }
            }
        }
        return builder.build(name: "interactions")
    }
}
