import Geometry
import Molecule
import SceneExport

/// A Gaussian molecular surface: the iso-surface of a sum of Gaussians, one per visible heavy atom,
/// `Σ exp(−k·d²/r²)` with `r` the van der Waals radius plus a small inflation, at the level
/// `exp(−k)` where an isolated atom's surface lies at `r`. Neighbouring atoms blend, which fills
/// crevices much as a solvent-excluded surface does. The density is sampled on a grid whose spacing
/// follows `MeshContext.detail` (coarser when needed to keep the grid under `maximumGridPoints`),
/// each atom touching only the points within its cutoff, and contoured by marching cubes into an
/// indexed, closed mesh with normals from the density gradient and each vertex coloured like the
/// atom contributing most to the density there.
public enum MolecularSurface {
    /// Grid spacing in Å for each detail level 0...4.
    static let spacings: [Float] = [2.0, 1.5, 1.0, 0.7, 0.5]
    /// Coarse levels −1...−3 for huge structures (a virus, a ribosome) under a triangle budget: a
    /// wider grid and atoms inflated into a smooth envelope, so the shape survives with few triangles.
    static let coarseSpacings: [Float] = [3.0, 4.5, 6.5, 9.0, 12.0]
    static let coarseInflations: [Float] = [1.0, 2.0, 3.0, 4.5, 6.0]
    /// The coarsest level `detail` may take.
    public static let coarsestDetail = -5

    static func spacing(detail: Int) -> Float {
        detail >= 0 ? spacings[min(detail, spacings.count - 1)] : coarseSpacings[min(-detail, coarseSpacings.count) - 1]
    }

    static func inflation(detail: Int) -> Float {
        detail >= 0 ? inflation : coarseInflations[min(-detail, coarseInflations.count) - 1]
    }
    /// Largest grid (points); 4 bytes each.
    static let maximumGridPoints = 32_000_000
    /// Sharpness k of the Gaussians: larger is closer to a union of spheres.
    static let sharpness: Float = 2.0
    /// Added to the van der Waals radius, for a slightly solvent-excluded look.
    static let inflation: Float = 0.1
    /// Atoms contribute only within `cutoffFactor × r`, where their density has fallen to 1/1000 of
    /// the iso-level.
    static let cutoffFactor: Float = (1 + 6.9077553 / sharpness).squareRoot()

    public static func build(_ ctx: MeshContext) -> TriangleMesh {
        var mesh = TriangleMesh(name: "surface")
        let atoms = SurfaceAtoms(ctx)
        guard !atoms.positions.isEmpty else { return mesh }
        let layout = SurfaceGridLayout(atoms: atoms, detail: ctx.detail)
        let density = computeDensity(atoms: atoms, layout: layout)
        var needsFaceNormal: [Bool] = []
        contour(density: density, layout: layout, mesh: &mesh, needsFaceNormal: &needsFaceNormal)
        repairNormals(&mesh, needsFaceNormal: needsFaceNormal)
        colour(&mesh, atoms: atoms, ctx: ctx)
        if mesh.triangleCount > 0 { mesh.parts = [TriangleMesh.Part(triangles: 0..<mesh.triangleCount, material: 0)] }
        return mesh
    }

    /// An upper bound, in practice, on `build(ctx).triangleCount`, much cheaper than building: the
    /// surface area is estimated from a coarse occupancy grid of the inflated atoms and divided by
    /// the square of the grid spacing `build` would use.
    public static func estimatedTriangles(_ ctx: MeshContext) -> Int {
        let atoms = SurfaceAtoms(ctx)
        guard !atoms.positions.isEmpty else { return 0 }
        let spacing = SurfaceGridLayout(atoms: atoms, detail: ctx.detail).spacing
        let area = estimatedArea(atoms: atoms)
        return Int((trianglesPerArea * area / (spacing * spacing)).rounded(.up)) + 64
    }

    /// Triangles per Å² of estimated area at unit spacing, measured on proteins, nucleic acids and
    /// single atoms with a margin.
    static let trianglesPerArea: Float = 3.0

    // MARK: - Density

    static func computeDensity(atoms: SurfaceAtoms, layout g: SurfaceGridLayout) -> [Float] {
        var density = [Float](repeating: 0, count: g.pointCount)
        let span = Int((2 * atoms.maxCutoff / g.spacing).rounded(.up)) + 3
        var ex = [Float](repeating: 0, count: span), ey = ex, ez = ex
        var dy2 = ex, dz2 = ex
        let nx = g.nx, ny = g.ny, nz = g.nz, h = g.spacing, o = g.origin
        density.withUnsafeMutableBufferPointer { d in
            for a in 0..<atoms.positions.count {
                let p = atoms.positions[a], r = atoms.radii[a]
                let k = sharpness / (r * r), cut = cutoffFactor * r, cut2 = cut * cut
                func range(_ c: Float, _ o: Float, _ n: Int) -> (Int, Int) {
                    let lo = max(0, Int(((c - cut - o) / h).rounded(.up)))
                    let hi = min(n - 1, Int(((c + cut - o) / h).rounded(.down)))
                    return (lo, min(hi, lo + span - 1))
                }
                let (x0, x1) = range(p.x, o.x, nx), (y0, y1) = range(p.y, o.y, ny), (z0, z1) = range(p.z, o.z, nz)
                guard x0 <= x1, y0 <= y1, z0 <= z1 else { continue }
                for i in x0...x1 { let t = o.x + Float(i) * h - p.x; ex[i - x0] = SurfaceMath.exp(-k * t * t) }
                for i in y0...y1 { let t = o.y + Float(i) * h - p.y; dy2[i - y0] = t * t; ey[i - y0] = SurfaceMath.exp(-k * t * t) }
                for i in z0...z1 { let t = o.z + Float(i) * h - p.z; dz2[i - z0] = t * t; ez[i - z0] = SurfaceMath.exp(-k * t * t) }
                ex.withUnsafeBufferPointer { ex in
                    for z in z0...z1 {
                        let zz = dz2[z - z0]
                        if zz > cut2 { continue }
                        for y in y0...y1 {
                            if zz + dy2[y - y0] > cut2 { continue }
                            let w = ez[z - z0] * ey[y - y0]
                            let row = (z * ny + y) * nx
                            for x in x0...x1 { d[row + x] += w * ex[x - x0] }
                        }
                    }
                }
            }
        }
        return density
    }

    // MARK: - Marching cubes

    static func contour(density: [Float], layout g: SurfaceGridLayout, mesh: inout TriangleMesh, needsFaceNormal: inout [Bool]) {
        let tables = SurfaceMarchingCubes.tables
        let nx = g.nx, ny = g.ny, nz = g.nz, h = g.spacing, origin = g.origin
        let iso = SurfaceMath.exp(-sharpness), logIso = -sharpness
        let plane = nx * ny
        guard nx >= 2, ny >= 2, nz >= 2 else { return }
        // Vertex index of each crossed grid edge, for the two planes of points (x and y edges) and
        // the slab between them (z edges); -1 where none yet.
        var xEdges = [Int32](repeating: -1, count: 2 * plane)
        var yEdges = [Int32](repeating: -1, count: 2 * plane)
        var zEdges = [Int32](repeating: -1, count: plane)
        var positions: [SIMD3<Float>] = [], normals: [SIMD3<Float>] = [], indices: [UInt32] = []
        var flags: [Bool] = []
        let cornerStep = (0..<8).map { c -> Int in
            let o = SurfaceMarchingCubes.cornerOffset(c)
            return o.x + o.y * nx + o.z * plane
        }
        // Per edge: axis, lower corner's offset.
        let edgeAxis = (0..<12).map { $0 / 4 }
        let edgeLow = tables.edgeCorners.map { SurfaceMarchingCubes.cornerOffset(Int($0.0)) }
        density.withUnsafeBufferPointer { d in
            func gradient(_ i: Int, _ x: Int, _ y: Int, _ z: Int) -> SIMD3<Float> {
                let xm = x > 0 ? i - 1 : i, xp = x < nx - 1 ? i + 1 : i
                let ym = y > 0 ? i - nx : i, yp = y < ny - 1 ? i + nx : i
                let zm = z > 0 ? i - plane : i, zp = z < nz - 1 ? i + plane : i
                return SIMD3(d[xp] - d[xm], d[yp] - d[ym], d[zp] - d[zm])
            }
            for z in 0..<(nz - 1) {
                let lowPlane = (z & 1) * plane, highPlane = ((z + 1) & 1) * plane
                if z > 0 {
                    for i in 0..<plane { xEdges[highPlane + i] = -1; yEdges[highPlane + i] = -1; zEdges[i] = -1 }
                }
                for y in 0..<(ny - 1) {
                    for x in 0..<(nx - 1) {
                        let base = (z * ny + y) * nx + x
                        var config = 0
                        for c in 0..<8 where d[base + cornerStep[c]] > iso { config |= 1 << c }
                        if config == 0 || config == 255 { continue }
                        let start = Int(tables.triangleStart[config]), end = Int(tables.triangleStart[config + 1])
                        for j in start..<end {
                            let e = Int(tables.triangleEdges[j])
                            let axis = edgeAxis[e], lo = edgeLow[e]
                            let gx = x + lo.x, gy = y + lo.y, gz = z + lo.z
                            let slot: Int
                            switch axis {
                            case 0: slot = (lo.z == 0 ? lowPlane : highPlane) + gy * nx + gx
                            case 1: slot = (lo.z == 0 ? lowPlane : highPlane) + gy * nx + gx
                            default: slot = gy * nx + gx
                            }
                            var v: Int32
                            switch axis {
                            case 0: v = xEdges[slot]
                            case 1: v = yEdges[slot]
                            default: v = zEdges[slot]
                            }
                            if v < 0 {
                                let i0 = (gz * ny + gy) * nx + gx
                                let step = axis == 0 ? 1 : (axis == 1 ? nx : plane)
                                let i1 = i0 + step
                                let v0 = d[i0], v1 = d[i1]
                                // Interpolate the logarithm, which is quadratic for one Gaussian:
                                // far more accurate than the density itself on a coarse grid.
                                let l0 = SurfaceMath.log(max(v0, 1e-30)), l1 = SurfaceMath.log(max(v1, 1e-30))
                                let t = l1 != l0 ? min(max((logIso - l0) / (l1 - l0), 0), 1) : 0.5
                                var p = SIMD3<Float>(Float(gx), Float(gy), Float(gz))
                                p[axis] += t
                                positions.append(origin + p * h)
                                let g0 = gradient(i0, gx, gy, gz)
                                let g1 = gradient(i1, gx + (axis == 0 ? 1 : 0), gy + (axis == 1 ? 1 : 0), gz + (axis == 2 ? 1 : 0))
                                let grad = g0 + (g1 - g0) * t
                                let length = (grad * grad).sum().squareRoot()
                                if length > 1e-12 && length.isFinite {
                                    normals.append(-grad / length); flags.append(false)
                                } else {
                                    normals.append(SIMD3(0, 0, 1)); flags.append(true)
                                }
                                v = Int32(positions.count - 1)
                                switch axis {
                                case 0: xEdges[slot] = v
                                case 1: yEdges[slot] = v
                                default: zEdges[slot] = v
                                }
                            }
                            indices.append(UInt32(v))
                        }
                    }
                }
            }
        }
        mesh.positions = positions
        mesh.normals = normals
        mesh.indices = indices
        needsFaceNormal = flags
    }

    /// Gives vertices where the gradient vanished the area-weighted normal of their triangles.
    static func repairNormals(_ mesh: inout TriangleMesh, needsFaceNormal: [Bool]) {
        guard needsFaceNormal.contains(true) else { return }
        var sums = [SIMD3<Float>](repeating: .zero, count: mesh.vertexCount)
        for t in 0..<mesh.triangleCount {
            let a = Int(mesh.indices[3 * t]), b = Int(mesh.indices[3 * t + 1]), c = Int(mesh.indices[3 * t + 2])
            guard needsFaceNormal[a] || needsFaceNormal[b] || needsFaceNormal[c] else { continue }
            let u = mesh.positions[b] - mesh.positions[a], v = mesh.positions[c] - mesh.positions[a]
            let n = cross(u, v)
            sums[a] += n; sums[b] += n; sums[c] += n
        }
        for i in 0..<mesh.vertexCount where needsFaceNormal[i] {
            let l = (sums[i] * sums[i]).sum().squareRoot()
            if l > 0 && l.isFinite { mesh.normals[i] = sums[i] / l }
        }
    }

    /// Colours each vertex like the atom whose Gaussian is largest there (smallest d²/r²), and names
    /// that atom as what the vertex draws.
    static func colour(_ mesh: inout TriangleMesh, atoms: SurfaceAtoms, ctx: MeshContext) {
        // Two extra points at the corners of the vertices' box make the grid cover every vertex
        // (a grid over flat or single-atom input would otherwise be too thin to find them).
        let pad = SIMD3<Float>(repeating: atoms.maxCutoff + 1)
        let grid = SpatialGrid(points: atoms.positions + [atoms.lower - pad, atoms.upper + pad], cellSize: atoms.maxCutoff)
        let atomCount = atoms.positions.count
        let fallback = SIMD4<Float>(0.8, 0.8, 0.8, 1)
        let positions = mesh.positions
        var features = [UInt32](repeating: TriangleMesh.noFeature, count: positions.count)
        mesh.colors = positions.indices.map { v in
            let p = positions[v]
            var best = -1
            var bestScore = Float.infinity
            grid.forEachCandidate(near: p) { j in
                guard j < atomCount else { return true }
                let d = p - atoms.positions[j]
                let s = (d * d).sum() * atoms.inverseRadiusSquared[j]
                if s < bestScore { bestScore = s; best = j }
                return true
            }
            guard best >= 0 else { return fallback }
            let atom = atoms.atomIndex[best]
            features[v] = UInt32(atom)
            guard atom < ctx.atomColors.count else { return fallback }
            let c = ctx.atomColors[atom]
            let clamped = pointwiseMin(pointwiseMax(c, .zero), SIMD4(repeating: 1))
            return clamped.x.isNaN || clamped.y.isNaN || clamped.z.isNaN || clamped.w.isNaN ? fallback : clamped
        }
        mesh.features = features
    }

    // MARK: - Estimate

    /// The area (Å²) of the union of the atoms' spheres inflated by the Gaussian blending, counted as
    /// exposed faces of a coarse voxel grid (which overcounts a smooth surface by about 1.5 on
    /// average; the estimate keeps that as margin).
    static func estimatedArea(atoms: SurfaceAtoms) -> Float {
        let extra: Float = 0.4
        var h: Float = 1.0
        let lo = atoms.lower - (atoms.maxRadius + extra + 2), hi = atoms.upper + (atoms.maxRadius + extra + 2)
        var n = SIMD3<Int>(1, 1, 1)
        while true {
            let e = (hi - lo) / h
            n = SIMD3(Int(e.x.rounded(.up)) + 1, Int(e.y.rounded(.up)) + 1, Int(e.z.rounded(.up)) + 1)
            if n.x * n.y * n.z <= 16_000_000 { break }
            h *= 1.25
        }
        var occupied = [Bool](repeating: false, count: n.x * n.y * n.z)
        for a in 0..<atoms.positions.count {
            let p = atoms.positions[a], r = atoms.radii[a] + extra, r2 = r * r
            let l = (p - r - lo) / h, u = (p + r - lo) / h
            let x0 = max(0, Int(l.x.rounded(.up))), x1 = min(n.x - 1, Int(u.x.rounded(.down)))
            let y0 = max(0, Int(l.y.rounded(.up))), y1 = min(n.y - 1, Int(u.y.rounded(.down)))
            let z0 = max(0, Int(l.z.rounded(.up))), z1 = min(n.z - 1, Int(u.z.rounded(.down)))
            guard x0 <= x1, y0 <= y1, z0 <= z1 else { continue }
            for z in z0...z1 {
                for y in y0...y1 {
                    for x in x0...x1 {
                        let q = lo + SIMD3(Float(x), Float(y), Float(z)) * h - p
                        if (q * q).sum() <= r2 { occupied[(z * n.y + y) * n.x + x] = true }
                    }
                }
            }
        }
        var faces = 0
        occupied.withUnsafeBufferPointer { o in
            for z in 0..<n.z {
                for y in 0..<n.y {
                    let row = (z * n.y + y) * n.x
                    for x in 0..<n.x {
                        let v = o[row + x]
                        if x + 1 < n.x && v != o[row + x + 1] { faces += 1 }
                        if y + 1 < n.y && v != o[row + x + n.x] { faces += 1 }
                        if z + 1 < n.z && v != o[row + x + n.x * n.y] { faces += 1 }
                    }
                }
            }
        }
        // A lone atom smaller than a voxel may cover no point; count at least its sphere.
        let minimum = atoms.radii.reduce(Float(0)) { $0 + 4 * Float.pi * ($1 + extra) * ($1 + extra) } / Float(max(atoms.radii.count, 1))
        return max(Float(faces) * h * h, minimum)
    }
}

/// The visible heavy atoms a surface is made of, with their inflated radii.
struct SurfaceAtoms {
    var positions: [SIMD3<Float>] = []
    var radii: [Float] = []
    var inverseRadiusSquared: [Float] = []
    var atomIndex: [Int] = []
    var lower = SIMD3<Float>(repeating: 0), upper = SIMD3<Float>(repeating: 0)
    var maxRadius: Float = 0
    var maxCutoff: Float { MolecularSurface.cutoffFactor * maxRadius }

    init(_ ctx: MeshContext) {
        let table = ctx.model.atoms
        let visible = ctx.visible
        var lo = SIMD3<Float>(repeating: .infinity), hi = SIMD3<Float>(repeating: -.infinity)
        for i in 0..<table.count {
            if i < visible.count && !visible[i] { continue }
            let element = table.elements[i]
            if element.isHydrogen { continue }
            let p = table.positions[i]
            guard p.x.isFinite, p.y.isFinite, p.z.isFinite, abs(p.x) < 1e6, abs(p.y) < 1e6, abs(p.z) < 1e6 else { continue }
            var r = element.vanDerWaalsRadius
            if !(r > 0.5 && r < 4) { r = 1.7 }
            r += MolecularSurface.inflation(detail: ctx.detail)
            positions.append(p); radii.append(r); inverseRadiusSquared.append(1 / (r * r)); atomIndex.append(i)
            lo = pointwiseMin(lo, p); hi = pointwiseMax(hi, p)
            maxRadius = max(maxRadius, r)
        }
        if !positions.isEmpty { lower = lo; upper = hi }
    }
}

/// Where the density grid lies and how fine it is.
struct SurfaceGridLayout {
    var origin: SIMD3<Float>
    var spacing: Float
    var nx: Int, ny: Int, nz: Int
    var pointCount: Int { nx * ny * nz }

    init(atoms: SurfaceAtoms, detail: Int) {
        var h = MolecularSurface.spacing(detail: detail)
        let lower = atoms.lower, upper = atoms.upper, cutoff = atoms.maxCutoff
        while true {
            // Pad so that the outermost points get no density: the surface stays inside and closed.
            let pad = cutoff + 2 * h
            let extent = (upper - lower + 2 * pad) / h
            nx = Int(extent.x.rounded(.up)) + 1; ny = Int(extent.y.rounded(.up)) + 1; nz = Int(extent.z.rounded(.up)) + 1
            origin = lower - pad
            spacing = h
            if nx * ny * nz <= MolecularSurface.maximumGridPoints { break }
            h *= 1.05
        }
    }
}

enum SurfaceMath {
    /// e^x for x ≤ 0 (standard library only), relative error about 2e-5; 0 below −87.
    @inline(__always) static func exp(_ x: Float) -> Float {
        if x < -87 { return 0 }
        let y = x * 1.442695041  // log2(e)
        let n = y.rounded(.down)
        let f = y - n  // 0 ..< 1
        // 2^f on [0, 1): a degree-6 polynomial of ln(2)·f.
        let t = f * 0.693147181
        let p = 1 + t * (1 + t * (0.5 + t * (0.166666672 + t * (0.0416666679 + t * (0.00833333377 + t * 0.00138888892)))))
        return p * Float(sign: .plus, exponent: Int(n), significand: 1)
    }

    /// ln x for finite x > 0 (standard library only), absolute error about 1e-6.
    @inline(__always) static func log(_ x: Float) -> Float {
        let e = Float(x.exponent)
        let m = x.significand  // 1 ..< 2
        let s = (m - 1) / (m + 1), s2 = s * s  // 0 ..< 1/3
        let series = 2 * s * (1 + s2 * (0.333333343 + s2 * (0.2 + s2 * (0.142857149 + s2 * (0.111111112 + s2 * 0.0909090936)))))
        return e * 0.693147181 + series
    }
}
