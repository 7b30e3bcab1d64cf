import Geometry
import Molecule
import SceneExport

// Atom-and-bond representations. All build triangles in Å with per-vertex colours from
// `ctx.atomColors`, for visible atoms only; a bond is drawn when both its atoms are visible.
// Each `estimatedTriangles` is exact: it counts what `build` would emit.

extension MeshContext {
    @inline(__always) func isVisible(_ i: Int) -> Bool { i < visible.count ? visible[i] : visible.isEmpty }
    @inline(__always) func color(_ i: Int) -> SIMD4<Float> { i < atomColors.count ? atomColors[i] : ColorScheme.uniformColor }

    /// Atoms drawn: all of `visible` when it lines up with the atoms.
    func visibleAtomCount() -> Int {
        let n = model.atoms.count
        if visible.count == n { var c = 0; for v in visible where v { c += 1 }; return c }
        var c = 0
        for i in 0..<n where isVisible(i) { c += 1 }
        return c
    }

    /// Bonds drawn (both atoms visible and in range), and how many of those have one colour.
    func drawnBondCounts() -> (bonds: Int, sameColor: Int) {
        let n = model.atoms.count
        var total = 0, same = 0
        for k in 0..<bonds.count {
            let i = Int(bonds.a[k]), j = Int(bonds.b[k])
            guard i >= 0, j >= 0, i < n, j < n, isVisible(i), isVisible(j) else { continue }
            total += 1
            if color(i) == color(j) { same += 1 }
        }
        return (total, same)
    }

    /// Vertices and triangles of spheres on visible atoms plus midpoint-split bonds.
    func atomsAndBondsCost(spheres: Bool, bonds drawBonds: Bool) -> (vertices: Int, triangles: Int) {
        var v = 0, t = 0
        if spheres {
            let atoms = visibleAtomCount()
            v += atoms * MeshPrimitives.sphereVertices(detail: detail)
            t += atoms * MeshPrimitives.sphereTriangles(detail: detail)
        }
        if drawBonds {
            let (total, same) = drawnBondCounts()
            v += same * MeshPrimitives.bondVertices(detail: detail, sameColor: true)
                + (total - same) * MeshPrimitives.bondVertices(detail: detail, sameColor: false)
            t += same * MeshPrimitives.bondTriangles(detail: detail, sameColor: true)
                + (total - same) * MeshPrimitives.bondTriangles(detail: detail, sameColor: false)
        }
        return (v, t)
    }

    /// Spheres (radius per atom) on visible atoms and tubes of `bondRadius` for drawn bonds.
    func buildAtomsAndBonds(name: String, sphereRadius: ((Int) -> Float)?, bondRadius: Float?) -> TriangleMesh {
        let cost = atomsAndBondsCost(spheres: sphereRadius != nil, bonds: bondRadius != nil)
        var builder = MeshBuilder(detail: detail, vertexCapacity: cost.vertices, triangleCapacity: cost.triangles)
        let positions = model.atoms.positions
        let n = positions.count
        if let radius = sphereRadius {
            for i in 0..<n where isVisible(i) {
                builder.addSphere(center: positions[i], radius: radius(i), color: color(i), feature: UInt32(i))
            }
        }
        if let r = bondRadius {
            for k in 0..<bonds.count {
                let i = Int(bonds.a[k]), j = Int(bonds.b[k])
                guard i >= 0, j >= 0, i < n, j < n, isVisible(i), isVisible(j) else { continue }
                builder.addCylinder(from: positions[i], to: positions[j], radius: r, colorA: color(i), colorB: color(j),
                                    featureA: UInt32(i), featureB: UInt32(j))
            }
        }
        return builder.build(name: name)
    }
}

/// Spheres at a quarter of each atom's van der Waals radius (hydrogens smaller) joined by thin
/// tubes split at the bond midpoint.
public enum BallAndStick {
    public static let radiusScale: Float = 0.25
    /// Hydrogens' spheres are scaled by this instead.
    public static let hydrogenRadiusScale: Float = 0.18
    public static let bondRadius: Float = 0.14

    static func radius(_ element: Element) -> Float {
        element.vanDerWaalsRadius * (element.isHydrogen ? hydrogenRadiusScale : radiusScale)
    }

    public static func build(_ ctx: MeshContext) -> TriangleMesh {
        let elements = ctx.model.atoms.elements
        return ctx.buildAtomsAndBonds(name: "ball-and-stick", sphereRadius: { radius(elements[$0]) }, bondRadius: bondRadius)
    }

    public static func estimatedTriangles(_ ctx: MeshContext) -> Int { ctx.atomsAndBondsCost(spheres: true, bonds: true).triangles }
}

/// Spheres at each atom's van der Waals radius.
public enum Spacefill {
    public static func build(_ ctx: MeshContext) -> TriangleMesh {
        let elements = ctx.model.atoms.elements
        return ctx.buildAtomsAndBonds(name: "spacefill", sphereRadius: { elements[$0].vanDerWaalsRadius }, bondRadius: nil)
    }

    public static func estimatedTriangles(_ ctx: MeshContext) -> Int { ctx.atomsAndBondsCost(spheres: true, bonds: false).triangles }
}

/// Licorice: bonds as tubes of one radius, with spheres of the same radius at the atoms.
public enum Sticks {
    public static let radius: Float = 0.2

    public static func build(_ ctx: MeshContext) -> TriangleMesh {
        ctx.buildAtomsAndBonds(name: "sticks", sphereRadius: { _ in radius }, bondRadius: radius)
    }

    public static func estimatedTriangles(_ ctx: MeshContext) -> Int { ctx.atomsAndBondsCost(spheres: true, bonds: true).triangles }
}

/// Tubes joining consecutive residues' CA atoms (proteins) or P atoms (nucleic acids) in each
/// chain, with a sphere at every trace atom; a gap longer than 4.2 Å (CA) or 8 Å (P) breaks it.
public enum BackboneTrace {
    public static let radius: Float = 0.35
    public static let maxCADistance: Float = 4.2
    public static let maxPDistance: Float = 8.0

    /// Trace atoms (visible ones) and the pairs of them joined by a tube.
    struct Trace {
        var atoms: [Int32] = []
        var links: [(Int32, Int32)] = []
    }

    static func trace(_ ctx: MeshContext) -> Trace {
        let model = ctx.model
        let atoms = model.atoms
        var trace = Trace()
        trace.atoms.reserveCapacity(model.residues.count)
        trace.links.reserveCapacity(model.residues.count)
        for chain in model.chains {
            var previous: (atom: Int, isP: Bool)? = nil
            for r in chain.residueRange {
                let res = model.residues[r]
                var found: (atom: Int, isP: Bool)? = nil
                switch res.kind {
                case .water:
                    break
                case .nucleotide:
                    for i in res.atomRange where atoms.names[i] == "P" { found = (i, true); break }
                case .aminoAcid, .other:
                    for i in res.atomRange where atoms.names[i] == "CA" && atoms.elements[i] == .carbon { found = (i, false); break }
                }
                guard let current = found, ctx.isVisible(current.atom) else { previous = nil; continue }
                trace.atoms.append(Int32(current.atom))
                if let p = previous, p.isP == current.isP {
                    let limit = current.isP ? maxPDistance : maxCADistance
                    let d = lengthSquared(atoms.positions[current.atom] - atoms.positions[p.atom])
                    if d <= limit * limit { trace.links.append((Int32(p.atom), Int32(current.atom))) }
                }
                previous = current
            }
        }
        return trace
    }

    public static func build(_ ctx: MeshContext) -> TriangleMesh {
        let t = trace(ctx)
        let (vertices, triangles) = cost(t, ctx)
        var builder = MeshBuilder(detail: ctx.detail, vertexCapacity: vertices, triangleCapacity: triangles)
        let positions = ctx.model.atoms.positions
        for a in t.atoms { builder.addSphere(center: positions[Int(a)], radius: radius, color: ctx.color(Int(a)), feature: UInt32(a)) }
        for (a, b) in t.links {
            builder.addCylinder(from: positions[Int(a)], to: positions[Int(b)], radius: radius,
                                colorA: ctx.color(Int(a)), colorB: ctx.color(Int(b)), featureA: UInt32(a), featureB: UInt32(b))
        }
        return builder.build(name: "backbone-trace")
    }

    static func cost(_ t: Trace, _ ctx: MeshContext) -> (vertices: Int, triangles: Int) {
        let d = ctx.detail
        var v = t.atoms.count * MeshPrimitives.sphereVertices(detail: d)
        var tri = t.atoms.count * MeshPrimitives.sphereTriangles(detail: d)
        for (a, b) in t.links {
            let same = ctx.color(Int(a)) == ctx.color(Int(b))
            v += MeshPrimitives.bondVertices(detail: d, sameColor: same)
            tri += MeshPrimitives.bondTriangles(detail: d, sameColor: same)
        }
        return (v, tri)
    }

    public static func estimatedTriangles(_ ctx: MeshContext) -> Int { cost(trace(ctx), ctx).triangles }
}
