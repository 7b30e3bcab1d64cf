import Molecule
import SceneExport

/// What to draw and how: the options of `proteinar convert` and of the server's model endpoints.
public struct MoleculeSceneOptions: Sendable {
    public var representation: Representation = .auto
    /// nil picks a fitting default: chain colours for cartoons and surfaces, element colours for atoms.
    public var colorScheme: ColorScheme?
    public var selection: String?
    public var highlight: String?
    /// Also drawn as sticks, over whatever the style draws: a tapped residue's neighbours.
    public var sticks: String?
    /// The binding-site view of this ligand (its residue name or chain:number): `BindingSiteView`.
    public var site: String?
    /// Which model of the file to draw, from 1 (an NMR ensemble's or a trajectory's frames).
    public var model = 1
    /// Every model (up to `MoleculeSceneBuilder.mostFrames`) as the scene's frames, one after
    /// another, sharing the triangle budget: a GLB plays them as an animation.
    public var allModels = false
    public var hide: Set<HiddenGroup> = [.water]
    /// Another molecule the scene is made with (`ComparisonScene`); `MoleculeSceneBuilder` draws
    /// one structure and leaves it to the caller.
    public var partner: ScenePartner?
    public var assembly: String?
    public var maxTriangles = 300_000
    /// Longest side in metres; nil keeps true scale (1 Å = 10⁻¹⁰ m).
    public var size: Float? = 0.3
    public init() {}
}

/// A second molecule, by its library id: shown superposed on the first (`compare`) or as the end
/// of the first's motion (`morph`).
public struct ScenePartner: Sendable, Equatable {
    public enum Use: String, CaseIterable, Sendable { case compare, morph }
    public var use: Use
    public var id: String
    public init(_ use: Use, id: String) { self.use = use; self.id = id }
}

public enum HiddenGroup: String, CaseIterable, Sendable {
    case water, hydrogens, ligands

    public static func parse(_ list: String) throws -> Set<HiddenGroup> {
        var out: Set<HiddenGroup> = []
        for item in list.split(separator: ",") {
            let name = String(item.filter { $0 != " " })
            guard let g = HiddenGroup(rawValue: name) else {
                throw MeshOptionError("cannot hide '\(name)'; accepted: \(HiddenGroup.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            out.insert(g)
        }
        return out
    }
}

/// What the builder did, for progress messages and the caller's report.
public struct MoleculeSceneReport: Sendable {
    public var triangles = 0
    public var detail = 0
    public var layers: [String] = []
    /// Tessellation of each layer (negative: the coarse surfaces used for huge structures).
    public var layerDetails: [Int] = []
    public var instances = 1
    /// Level-of-detail decisions, e.g. "cartoon → backbone to stay under 300000 triangles".
    public var notes: [String] = []

    /// "cartoon at detail 4 + ball-and-stick at detail 2, 1 copy", for progress lines.
    public var summary: String {
        let parts = zip(layers, layerDetails).map { "\($0) at detail \($1)" }.joined(separator: " + ")
        return "\(parts), \(instances) cop\(instances == 1 ? "y" : "ies")"
    }
}

/// Turns a structure into a scene for the writers: representations per layer, colours, the
/// triangle budget, assembly copies as instances, and placement (Y up, centred on the ground
/// plane, scaled to the requested size).
public enum MoleculeSceneBuilder {
    public static func build(_ structure: Structure, options: MoleculeSceneOptions) throws -> (TriangleScene, MoleculeSceneReport) {
        try build(structure, options: options, placing: true)
    }

    /// `placing`: false leaves the scene in the structure's own Å coordinates (`place` not called),
    /// for a caller that puts more in it first (`ComparisonScene`).
    static func build(_ structure: Structure, options: MoleculeSceneOptions, placing: Bool) throws -> (TriangleScene, MoleculeSceneReport) {
        if options.allModels && structure.models.count > 1 { return try buildFrames(structure, options: options) }
        guard options.model >= 1, options.model <= max(structure.models.count, 1) else {
            throw MeshOptionError("model \(options.model): the file has \(structure.models.count) model\(structure.models.count == 1 ? "" : "s")")
        }
        guard let model = structure.models.indices.contains(options.model - 1) ? structure.models[options.model - 1] : nil,
              model.atoms.count > 0 else {
            throw MeshOptionError(structure.models.allSatisfy { $0.atoms.isEmpty } ? structure.noAtomsMessage : "model \(options.model) has no atoms to draw")
        }
        let codes = structure.secondaryStructure(modelIndex: options.model - 1)
        let polymer = structure.polymerResidueFlags(modelIndex: options.model - 1)
        let residueOf = model.residueIndexOfAtoms()

        // What is visible, and in which layer.
        var visible = [Bool](repeating: true, count: model.atoms.count)
        if let text = options.selection {
            let selection = try Selection(parsing: text)
            visible = selection.atoms(in: model, structure: structure)
            guard visible.contains(true) else { throw MeshOptionError("selection '\(text)' matches nothing") }
        }
        // Water is hidden by default, unless it is all there is to draw (a box of solvent, a file of
        // HOH alone): then it is drawn rather than nothing.
        let onlyWater = !(0..<model.atoms.count).contains { visible[$0] && !model.residues[Int(residueOf[$0])].isWater }
        for a in 0..<model.atoms.count where visible[a] {
            let r = Int(residueOf[a])
            if options.hide.contains(.water), !onlyWater, model.residues[r].isWater { visible[a] = false }
            if options.hide.contains(.hydrogens), model.atoms.elements[a].isHydrogen { visible[a] = false }
            if options.hide.contains(.ligands), !polymer[r], !model.residues[r].isWater { visible[a] = false }
        }
        guard visible.contains(true) else { throw MeshOptionError("nothing is left to draw once \(options.hide.map(\.rawValue).sorted().joined(separator: ", ")) are hidden") }

        var layers: [(Representation, [Bool])] = []
        var siteView: BindingSiteView?
        if let query = options.site {
            let view = try BindingSiteView(structure, model: model, modelIndex: options.model - 1, query: query)
            let cartoon = (0..<model.atoms.count).map { visible[$0] && polymer[Int(residueOf[$0])] && !view.ligand[$0] }
            if cartoon.contains(true) { layers.append((.cartoon, cartoon)) }
            let sticks = (0..<model.atoms.count).map { visible[$0] && view.site[$0] }
            if sticks.contains(true) { layers.append((.sticks, sticks)) }
            layers.append((.ballAndStick, view.ligand))
            siteView = view
        } else if options.representation == .auto {
            let polymerAtoms = (0..<model.atoms.count).map { visible[$0] && polymer[Int(residueOf[$0])] }
            let others = (0..<model.atoms.count).map { visible[$0] && !polymer[Int(residueOf[$0])] }
            if polymerAtoms.contains(true) { layers.append((.cartoon, polymerAtoms)) }
            if others.contains(true) { layers.append((.ballAndStick, others)) }
        } else {
            if options.representation == .cartoon, !(0..<model.atoms.count).contains(where: { visible[$0] && polymer[Int(residueOf[$0])] }) {
                throw MeshOptionError("there is no protein or nucleic acid chain to draw as a cartoon; try --style ball-and-stick or spacefill")
            }
            layers.append((options.representation, visible))
        }
        // Over atomic styles the atoms are drawn already (and spacefill would hide sticks).
        if let text = options.sticks, siteView == nil, ![.ballAndStick, .sticks, .spacefill].contains(options.representation) {
            let chosen = try Selection(parsing: text).atoms(in: model, structure: structure)
            let sticks = (0..<model.atoms.count).map { visible[$0] && chosen[$0] }
            guard sticks.contains(true) else { throw MeshOptionError("sticks '\(text)' matches nothing that is drawn") }
            layers.append((.sticks, sticks))
        }

        // Colours, with the non-highlighted part dimmed.
        func colors(for rep: Representation) -> [SIMD4<Float>] {
            let scheme = options.colorScheme ?? ((rep == .cartoon || rep == .surface || rep == .backbone) ? .chain : .element)
            var c = scheme.atomColors(for: model, in: structure, secondaryStructure: codes)
            func fade(_ a: Int) { c[a] = SIMD4(c[a].x * 0.25 + 0.55, c[a].y * 0.25 + 0.55, c[a].z * 0.25 + 0.55, c[a].w) }
            if siteView != nil {
                // The cartoon faded; the ligand and its site in full colour (element colours: they are atoms).
                if rep == .cartoon { c.indices.forEach(fade) }
            } else if let h = options.highlight, let sel = try? Selection(parsing: h) {
                let lit = sel.atoms(in: model, structure: structure)
                for a in c.indices where !lit[a] { fade(a) }
            }
            return c
        }
        if let h = options.highlight {
            let sel = try Selection(parsing: h)
            guard sel.atoms(in: model, structure: structure).contains(true) else { throw MeshOptionError("highlight '\(h)' matches nothing") }
        }

        // Copies: the identity, or every operator combination of the assembly.
        var copies: [[Float]] = [Node.identity]
        var chainFilter: [Set<String>?] = [nil]
        if let id = options.assembly {
            let assembly: Assembly
            do { assembly = try structure.assembly(id) } catch { throw MeshOptionError(error.message) }
            copies = []; chainFilter = []
            for g in assembly.generators {
                for sequence in g.operatorSequences {
                    let op: SymmetryOperator
                    do { op = try structure.composedOperator(sequence) } catch { throw MeshOptionError(error.message) }
                    let r = op.rotation.map(Float.init), t = op.translation
                    copies.append([r[0], r[3], r[6], 0, r[1], r[4], r[7], 0, r[2], r[5], r[8], 0, Float(t.x), Float(t.y), Float(t.z), 1])
                    chainFilter.append(Set(g.chainIDs))
                }
            }
        }

        // One mesh per layer and distinct chain filter; copies place it by nodes.
        // Only atoms-and-bonds styles draw bonds; cartoons and surfaces skip finding them.
        let bonds = layers.contains { $0.0 == .ballAndStick || $0.0 == .sticks } ? BondBuilder.bonds(of: model, in: structure) : BondList()
        let hasLabels = model.residueLabelAsym.count == model.residues.count
        func mask(_ base: [Bool], _ filter: Set<String>?, author: Bool) -> [Bool] {
            guard let filter else { return base }
            let chainOf = model.chainIndexOfResidues()
            return (0..<base.count).map { a in
                guard base[a] else { return false }
                let r = Int(residueOf[a])
                if hasLabels, !author { return filter.contains(model.residueLabelAsym[r]) }
                return filter.contains(model.chains[Int(chainOf[r])].id)
            }
        }
        let authorIDs = options.assembly.flatMap { id in structure.assemblies.first { $0.id == id }?.generators.first?.chainIDsAreAuthor } ?? true
        var filterKeys: [Set<String>?] = []
        for f in chainFilter where !filterKeys.contains(f) { filterKeys.append(f) }

        var report = MoleculeSceneReport()
        report.instances = copies.count
        var contexts: [(Representation, Set<String>?, MeshContext)] = []
        for (rep, layerMask) in layers {
            let atomColors = colors(for: rep)
            for f in filterKeys {
                let m = mask(layerMask, f, author: authorIDs)
                guard m.contains(true) else { continue }
                contexts.append((rep, f, MeshContext(structure: structure, model: model, atomColors: atomColors, visible: m,
                                                     secondaryStructure: codes, bonds: bonds, detail: 4)))
            }
        }
        func uses(_ f: Set<String>?) -> Int { chainFilter.filter { $0 == f }.count }

        // Level of detail: the finest tessellation whose estimate fits the budget; if even the
        // coarsest does not, the costliest layer steps down a ladder of lighter styles (polymers:
        // backbone, then ever coarser surfaces; atoms: spacefill, then left out), as Mol* does for
        // huge assemblies.
        var chosen = contexts
        var detail = 4
        func cost(_ c: (Representation, Set<String>?, MeshContext)) -> Int { c.0.estimatedTriangles(c.2) * uses(c.1) }
        func total(_ cs: [(Representation, Set<String>?, MeshContext)]) -> Int { cs.reduce(0) { $0 + cost($1) } }
        while true {
            for k in chosen.indices { chosen[k].2.detail = detail }
            if total(chosen) <= options.maxTriangles || detail == 0 { break }
            detail -= 1
        }
        // Past the ladder's end the lightest choice is built anyway and simplified to the budget.
        var simplify = false
        ladder: while total(chosen) > options.maxTriangles {
            guard let k = chosen.indices.max(by: { cost(chosen[$0]) < cost(chosen[$1]) }) else { break }
            let (rep, filter, ctx) = chosen[k]
            let before = "\(rep.rawValue) (detail \(ctx.detail))"
            switch rep {
            case .ballAndStick, .sticks:
                chosen[k].0 = .spacefill
                chosen[k].2.detail = 0
            case .spacefill where !ctx.visible.indices.contains(where: { ctx.visible[$0] && polymer[Int(residueOf[$0])] }):
                chosen.remove(at: k)
                report.notes.append("\(before) left out to stay under \(options.maxTriangles) triangles")
                continue
            case .cartoon, .spacefill:
                chosen[k].0 = .backbone
                chosen[k].2.detail = 0
            case .backbone:
                chosen[k].0 = .surface
                chosen[k].2.detail = -1
            case .surface where ctx.detail > MolecularSurface.coarsestDetail:
                chosen[k].2.detail = min(ctx.detail, 0) - 1
            default:
                simplify = true
                break ladder
            }
            _ = filter
            report.notes.append("\(before) → \(chosen[k].0.rawValue) (detail \(chosen[k].2.detail)) to stay under \(options.maxTriangles) triangles")
        }
        if detail < 4 { report.notes.append("tessellation lowered to level \(detail) of 4 to stay under \(options.maxTriangles) triangles") }
        report.detail = detail
        report.layers = chosen.map(\.0.rawValue)
        report.layerDetails = chosen.map(\.2.detail)

        // Build: other layers first, then surfaces, whose estimates run 1.5–3× high; a surface
        // well under its share is rebuilt finer while the measured count still fits.
        var built = [TriangleMesh?](repeating: nil, count: chosen.count)
        let order = chosen.indices.filter { chosen[$0].0 != .surface } + chosen.indices.filter { chosen[$0].0 == .surface }
        for k in order {
            built[k] = chosen[k].0.build(chosen[k].2)
            guard chosen[k].0 == .surface else { continue }
            let first = chosen[k].2.detail
            func spent() -> Int {
                chosen.indices.reduce(0) { sum, j in
                    sum + (built[j]?.triangleCount ?? chosen[j].0.estimatedTriangles(chosen[j].2)) * uses(chosen[j].1)
                }
            }
            while chosen[k].2.detail < 4, let mesh = built[k], mesh.triangleCount > 0 {
                var finer = chosen[k].2
                finer.detail += 1
                let ratio = Double(mesh.triangleCount) / Double(max(1, MolecularSurface.estimatedTriangles(chosen[k].2)))
                let predicted = Int(Double(MolecularSurface.estimatedTriangles(finer)) * ratio * 1.1)
                guard spent() - mesh.triangleCount * uses(chosen[k].1) + predicted * uses(chosen[k].1) <= options.maxTriangles else { break }
                let candidate = MolecularSurface.build(finer)
                guard spent() - mesh.triangleCount * uses(chosen[k].1) + candidate.triangleCount * uses(chosen[k].1) <= options.maxTriangles else { break }
                built[k] = candidate
                chosen[k].2 = finer
            }
            if chosen[k].2.detail > first {
                report.notes.append("surface refined from detail \(first) to \(chosen[k].2.detail) once built: \(spent()) triangles")
            }
        }
        report.layerDetails = chosen.map(\.2.detail)

        if simplify {
            let placed = chosen.indices.reduce(0) { $0 + (built[$1]?.triangleCount ?? 0) * uses(chosen[$1].1) }
            if placed > options.maxTriangles {
                // Every mesh keeps the same share, rounded down, so the placed total fits.
                let share = Double(options.maxTriangles) / Double(placed)
                var deviation: Float = 0
                var emptied = false
                for k in built.indices {
                    guard let mesh = built[k] else { continue }
                    let simplified = MeshSimplifier.simplify(mesh, targetTriangles: Int(Double(mesh.triangleCount) * share))
                    built[k] = simplified.mesh
                    deviation = max(deviation, simplified.deviation)
                    if mesh.triangleCount > 0 && simplified.mesh.triangleCount == 0 { emptied = true }
                }
                let after = chosen.indices.reduce(0) { $0 + (built[$1]?.triangleCount ?? 0) * uses(chosen[$1].1) }
                // A layer simplified away entirely would be a model that is not the molecule.
                guard after <= options.maxTriangles, !emptied else {
                    throw MeshOptionError("even the lightest style, simplified, needs \(after) triangles, more than --max-triangles \(options.maxTriangles)")
                }
                report.notes.append("simplified (meshoptimizer) from \(placed) to \(after) placed triangles to stay under \(options.maxTriangles); surfaces moved by at most \(Self.oneDecimal(deviation)) Å")
            }
        }

        // Feature ids count the first model's atoms (identify.json's table): another model's are
        // translated, atom by atom, by chain, residue and atom name (its atoms may differ in number).
        if options.model > 1 {
            let firstIndex = Self.atomIndices(of: model, in: structure.models[0])
            for k in built.indices {
                guard var mesh = built[k] else { continue }
                mesh.features = mesh.features.map { $0 == TriangleMesh.noFeature || Int($0) >= firstIndex.count ? TriangleMesh.noFeature : firstIndex[Int($0)] }
                built[k] = mesh
            }
        }

        var scene = TriangleScene(name: structure.metadata.id.isEmpty ? "molecule" : structure.metadata.id)
        scene.materials = [Material(name: "molecule", baseColor: SIMD4(1, 1, 1, 1), metallic: 0, roughness: 0.55)]
        var meshOf: [Int: Int] = [:]
        for (k, c) in chosen.enumerated() {
            guard var mesh = built[k], mesh.triangleCount > 0 else { continue }
            mesh.name = "\(c.0.rawValue)-\(k)"
            mesh.parts = [.init(triangles: 0..<mesh.triangleCount, material: 0)]
            meshOf[k] = scene.meshes.count
            scene.meshes.append(mesh)
        }
        for (copy, transform) in copies.enumerated() {
            for (k, c) in chosen.enumerated() where c.1 == chainFilter[copy] {
                guard let m = meshOf[k] else { continue }
                scene.nodes.append(Node(name: "\(scene.meshes[m].name)-\(copy + 1)", mesh: m, transform: transform))
            }
        }
        if let siteView {
            let dashes = siteView.dashes(model)
            if dashes.triangleCount > 0 {
                scene.nodes.append(Node(name: "interactions", mesh: scene.meshes.count, transform: Node.identity))
                scene.meshes.append(dashes)
                report.layers.append("interactions")
                report.layerDetails.append(1)
            }
        }
        // Every model of an ensemble is placed as the first one is, so that stepping through them shows
        // the molecule's own motion, not each frame centred and scaled anew.
        let firstModelShift = copies.count == 1 && options.model > 1 ? Self.boundsShift(from: model, to: structure.models[0]) : nil
        if placing { place(&scene, size: options.size, shiftingBounds: firstModelShift) }
        report.triangles = scene.triangleCount
        return (scene, report)
    }

    /// The most models a scene of all models holds as frames (a trajectory's first ones).
    public static let mostFrames = 50

    /// Each model built on its own (placed as the first is) with an equal share of the budget,
    /// its nodes a frame of the scene.
    static func buildFrames(_ structure: Structure, options: MoleculeSceneOptions) throws -> (TriangleScene, MoleculeSceneReport) {
        let count = min(structure.models.count, mostFrames)
        var one = options
        one.allModels = false
        one.maxTriangles = max(1, options.maxTriangles / count)
        var scene = TriangleScene(name: structure.metadata.id.isEmpty ? "molecule" : structure.metadata.id)
        var report = MoleculeSceneReport()
        for k in 1...count {
            one.model = k
            let (frame, frameReport) = try build(structure, options: one)
            if k == 1 { scene.materials = frame.materials; report = frameReport }
            scene.frames.append(Array(scene.append(frame, namePrefix: "model-\(k)-")))
        }
        report.triangles = scene.triangleCount
        report.notes.append("\(count) models as frames of an animation, each under \(one.maxTriangles) triangles"
            + (structure.models.count > count ? " (the first \(count) of \(structure.models.count))" : ""))
        return (scene, report)
    }

    /// How far the corners of `other`'s atoms' box lie from those of `model`'s: added to a scene of
    /// `model`, its bounds become (nearly: the drawn radii are alike) those of a scene of `other`.
    static func boundsShift(from model: Model, to other: Model) -> (lo: SIMD3<Float>, hi: SIMD3<Float>)? {
        func box(_ m: Model) -> (SIMD3<Float>, SIMD3<Float>)? {
            guard var lo = m.atoms.positions.first else { return nil }
            var hi = lo
            for p in m.atoms.positions { lo = pointwiseMin(lo, p); hi = pointwiseMax(hi, p) }
            return (lo, hi)
        }
        guard let (lo, hi) = box(model), let (otherLo, otherHi) = box(other) else { return nil }
        return (otherLo - lo, otherHi - hi)
    }

    /// For each atom of `model`, the index of the same atom (chain, residue number and insertion code,
    /// atom name and alternate location) in `first`, or `TriangleMesh.noFeature`.
    static func atomIndices(of model: Model, in first: Model) -> [UInt32] {
        struct Key: Hashable { var chain: String; var number: Int32; var insertion: UInt8; var name: String; var altLoc: UInt8 }
        func keys(_ m: Model) -> [Key] {
            let residueOf = m.residueIndexOfAtoms(), chainOf = m.chainIndexOfResidues()
            return (0..<m.atoms.count).map { a in
                let r = Int(residueOf[a])
                return Key(chain: m.chains[Int(chainOf[r])].id, number: m.residues[r].number, insertion: m.residues[r].insertionCode,
                           name: m.atoms.names[a], altLoc: a < m.atoms.altLocs.count ? m.atoms.altLocs[a] : 0)
            }
        }
        var index: [Key: UInt32] = [:]
        for (a, key) in keys(first).enumerated() where index[key] == nil { index[key] = UInt32(a) }
        return keys(model).map { index[$0] ?? TriangleMesh.noFeature }
    }

    /// "0.7" for a progress line.
    static func oneDecimal(_ x: Float) -> String { String((Double(x) * 10).rounded() / 10) }

    /// Centres the scene on the ground plane (Y up, resting on y = 0) and scales it so its longest
    /// side is `size` metres (or 1 Å = 10⁻¹⁰ m when nil), by composing every node's transform.
    /// `shiftingBounds` moves the scene's bounds before they are used (the corners' shifts), so that
    /// a frame of an ensemble is framed as the first model's scene would be.
    static func place(_ scene: inout TriangleScene, size: Float?, shiftingBounds shift: (lo: SIMD3<Float>, hi: SIMD3<Float>)? = nil) {
        guard var (lo, hi) = scene.worldBounds() else { return }
        if let shift { lo += shift.lo; hi += shift.hi }
        let extent = hi - lo
        let longest = max(extent.x, extent.y, extent.z)
        let s: Float = size.map { longest > 0 ? $0 / longest : 1 } ?? 1e-10
        let shift = SIMD3<Float>(-(lo.x + hi.x) / 2, -lo.y, -(lo.z + hi.z) / 2)
        for k in scene.nodes.indices {
            var t = scene.nodes[k].transform
            // world = s · (T · p + shift)
            for i in 0..<12 { t[i] *= s }
            t[12] = (t[12] + shift.x) * s; t[13] = (t[13] + shift.y) * s; t[14] = (t[14] + shift.z) * s
            scene.nodes[k].transform = t
        }
    }
}
