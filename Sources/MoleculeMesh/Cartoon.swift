import Geometry
import Molecule
import SceneExport

/// Cartoon (ribbon) representation after Carson & Bugg (1986): a Catmull–Rom spline through the
/// CA atoms of protein chains (P atoms of nucleic acids), framed by the carbonyl direction CA→O with
/// its sign kept continuous, swept with a profile per secondary structure element: a round tube for
/// coil, a wide elliptical ribbon for helices, a flat ribbon ending in an arrowhead for strands.
/// Nucleotides add a slab from the backbone to the base's Watson–Crick edge (N1 of purines, N3 of
/// pyrimidines). Pieces end with flat caps at chain ends and gaps (CA–CA over 4.2 Å).
public enum Cartoon {
    public static func build(_ ctx: MeshContext) -> TriangleMesh {
        let pieces = CartoonTrace.pieces(ctx)
        let spr = CartoonSizes.segmentsPerResidue(ctx.detail)
        let shape = CartoonRing(CartoonSizes.ringVertices(ctx.detail))
        let planned = pieces.reduce(0) { $0 + $1.triangleCount(segmentsPerResidue: spr, ringVertices: shape.count) }
        var buffer = CartoonMeshBuffer(reserveTriangles: planned)
        for piece in pieces { CartoonSweep.sweep(piece, spr: spr, shape: shape, into: &buffer) }
        var mesh = TriangleMesh(name: "cartoon")
        mesh.positions = buffer.positions
        mesh.normals = buffer.normals
        mesh.colors = buffer.colors
        mesh.features = buffer.features
        mesh.indices = buffer.indices
        if !mesh.indices.isEmpty { mesh.parts = [TriangleMesh.Part(triangles: 0..<mesh.triangleCount, material: 0)] }
        return mesh
    }

    /// The number of triangles `build` makes at `ctx.detail` (exact, so also an upper bound); it
    /// traces the chains but makes no geometry.
    public static func estimatedTriangles(_ ctx: MeshContext) -> Int {
        let spr = CartoonSizes.segmentsPerResidue(ctx.detail)
        let m = CartoonSizes.ringVertices(ctx.detail)
        return CartoonTrace.pieces(ctx).reduce(0) { $0 + $1.triangleCount(segmentsPerResidue: spr, ringVertices: m) }
    }
}

enum CartoonElement: UInt8 { case coil, helix, strand }

/// A nucleotide's slab: from the trace point to the base's far atom, lying in the base plane.
struct CartoonBase {
    var residue: Int  // index in the piece
    var end: SIMD3<Float>
    var planeNormal: SIMD3<Float>
}

/// One unbroken run of traced residues (at least two) of one chain.
struct CartoonPiece {
    var isNucleic = false
    var points: [SIMD3<Float>] = []
    /// Guide directions (CA→O), sign-continuous; zero where unknown.
    var guides: [SIMD3<Float>] = []
    var colors: [SIMD4<Float>] = []
    /// The traced atom (CA, P or C4') of each residue: what its stretch of the cartoon names.
    var atoms: [UInt32] = []
    var elements: [CartoonElement] = []
    /// For each segment i (between residues i and i+1): whether an arrowhead fills it.
    var arrows: [Bool] = []
    var bases: [CartoonBase] = []

    var count: Int { points.count }

    /// Arrowheads starting after the piece's first residue: each breaks the tube and adds a back cap.
    var arrowBreaks: Int {
        var n = 0
        for s in 1..<max(arrows.count, 1) where arrows[s] { n += 1 }
        return n
    }

    func triangleCount(segmentsPerResidue spr: Int, ringVertices m: Int) -> Int {
        let samples = (count - 1) * spr + 1
        return 2 * m * (samples - 1) + 2 * m + m * arrowBreaks + 12 * bases.count
    }

    /// Marks short elements as coil, smooths strands' pleat, and places arrowheads.
    mutating func finish() {
        let n = count
        // Elements shorter than a real one (a lone bridge, a one-residue helix) are drawn as coil.
        var i = 0
        while i < n {
            var j = i
            while j + 1 < n && elements[j + 1] == elements[i] { j += 1 }
            let minimum = elements[i] == .helix ? 3 : 2
            if elements[i] != .coil && j - i + 1 < minimum { for k in i...j { elements[k] = .coil } }
            i = j + 1
        }
        // Strands: average out the CA zig-zag (the pleat) so that sheets are flat.
        if n >= 3 {
            let original = points
            for k in 1..<(n - 1) where elements[k] == .strand {
                points[k] = (original[k - 1] + 2 * original[k] + original[k + 1]) * 0.25
            }
        }
        arrows = [Bool](repeating: false, count: max(n - 1, 0))
        i = 0
        while i < n {
            var j = i
            while j + 1 < n && elements[j + 1] == elements[i] { j += 1 }
            if elements[i] == .strand {
                // The arrow fills the segment after the strand's last residue, or its own last
                // segment when the piece ends there.
                let s = j < n - 1 ? j : j - 1
                if s >= 0 { arrows[s] = true }
            }
            i = j + 1
        }
    }
}

/// Reading the traced atoms out of the model.
enum CartoonTrace {
    static func pieces(_ ctx: MeshContext) -> [CartoonPiece] {
        let model = ctx.model
        let names = model.atoms.names
        let positions = model.atoms.positions
        let elements = model.atoms.elements
        var out: [CartoonPiece] = []
        let white = SIMD4<Float>(1, 1, 1, 1)

        for chain in model.chains {
            var piece = CartoonPiece()
            var lastGuide = SIMD3<Float>.zero
            func flush() {
                if piece.count >= 2 { piece.finish(); out.append(piece) }
                piece = CartoonPiece()
                lastGuide = .zero
            }
            for r in chain.residueRange {
                let res = model.residues[r]
                // Of alternative residues at one position (microheterogeneity) only the first is traced.
                if r > chain.residueRange.lowerBound, model.residues[r - 1].number == res.number,
                   model.residues[r - 1].insertionCode == res.insertionCode { continue }
                let kind = res.kind
                if kind == .water { flush(); continue }
                var ca = -1, o = -1, n = -1, c = -1
                var p = -1, c4 = -1, c3 = -1, c1 = -1, o5 = -1, c5p = -1
                var n1 = -1, n3 = -1, n9 = -1, c5 = -1
                for a in res.atomRange {
                    switch names[a] {
                    case "CA": if ca < 0 && elements[a] == .carbon { ca = a }
                    case "O": if o < 0 { o = a }
                    case "N": if n < 0 { n = a }
                    case "C": if c < 0 { c = a }
                    case "P": if p < 0 { p = a }
                    case "C4'", "C4*": if c4 < 0 { c4 = a }
                    case "C3'", "C3*": if c3 < 0 { c3 = a }
                    case "C1'", "C1*": if c1 < 0 { c1 = a }
                    case "O5'", "O5*": if o5 < 0 { o5 = a }
                    case "C5'", "C5*": if c5p < 0 { c5p = a }
                    case "N1": if n1 < 0 { n1 = a }
                    case "N3": if n3 < 0 { n3 = a }
                    case "N9": if n9 < 0 { n9 = a }
                    case "C5": if c5 < 0 { c5 = a }
                    default: break
                    }
                }
                let isProtein = ca >= 0 && (kind == .aminoAcid || (n >= 0 && c >= 0))
                let isNucleic = !isProtein && (c4 >= 0 || p >= 0)
                    && (kind == .nucleotide || (p >= 0 && o5 >= 0 && c5p >= 0 && c4 >= 0 && c3 >= 0 && c1 >= 0))
                guard isProtein || isNucleic else { flush(); continue }
                let trace = isProtein ? ca : (p >= 0 ? p : c4)
                if trace < ctx.visible.count && !ctx.visible[trace] { flush(); continue }
                let position = positions[trace]
                guard position.x.isFinite && position.y.isFinite && position.z.isFinite else { flush(); continue }
                if piece.count > 0 {
                    let d = position - piece.points[piece.count - 1]
                    let limit = isNucleic ? CartoonSizes.nucleicBreak : CartoonSizes.proteinBreak
                    if piece.isNucleic != isNucleic || (d * d).sum() > limit * limit { flush() }
                }
                piece.isNucleic = isNucleic

                var guide = SIMD3<Float>.zero
                let towards = isProtein ? o : (trace == p ? c4 : (c3 >= 0 ? c3 : c1))
                if towards >= 0 {
                    let g = positions[towards] - position
                    let l = (g * g).sum().squareRoot()
                    if l > 1e-4 && l.isFinite { guide = g / l }
                }
                if (guide * lastGuide).sum() < 0 { guide = -guide }
                if guide != .zero { lastGuide = guide }

                var element = CartoonElement.coil
                if isProtein && r < ctx.secondaryStructure.count {
                    switch ctx.secondaryStructure[r] {
                    case .alphaHelix, .helix310, .piHelix: element = .helix
                    case .strand, .bridge: element = .strand
                    default: element = .coil
                    }
                }
                if isNucleic {
                    let far = n9 >= 0 ? n1 : n3
                    if far >= 0, n1 >= 0, n3 >= 0, c5 >= 0 {
                        let e = positions[far]
                        let plane = cross(positions[n3] - positions[n1], positions[c5] - positions[n1])
                        if e.x.isFinite && e.y.isFinite && e.z.isFinite {
                            piece.bases.append(CartoonBase(residue: piece.count, end: e, planeNormal: plane))
                        }
                    }
                }
                piece.points.append(position)
                piece.guides.append(guide)
                piece.colors.append(trace < ctx.atomColors.count ? ctx.atomColors[trace] : white)
                piece.atoms.append(UInt32(trace))
                piece.elements.append(element)
            }
            flush()
        }
        return out
    }
}

/// Sweeping a piece's profile along its spline.
enum CartoonSweep {
    static func sweep(_ piece: CartoonPiece, spr: Int, shape: CartoonRing, into out: inout CartoonMeshBuffer) {
        let n = piece.count
        guard n >= 2 else { return }
        let m = shape.count
        let p = piece.points
        let samples = (n - 1) * spr + 1
        let coil = piece.isNucleic ? CartoonSizes.nucleic : CartoonSizes.coil

        func profile(of e: CartoonElement) -> CartoonProfile {
            switch e {
            case .coil: return coil
            case .helix: return CartoonSizes.helix
            case .strand: return CartoonSizes.strand
            }
        }

        var prevT = SIMD3<Float>.zero
        var prevB = SIMD3<Float>.zero
        var ring = -1          // first vertex of the strip's last ring
        var stripStart = true

        for k in 0..<samples {
            let i = min(k / spr, n - 2)
            let f = Float(k - i * spr) / Float(spr)
            // Catmull–Rom with mirrored phantom points at the ends.
            let p1 = p[i], p2 = p[i + 1]
            let p0 = i > 0 ? p[i - 1] : 2 * p1 - p2
            let p3 = i + 2 < n ? p[i + 2] : 2 * p2 - p1
            let c1 = p2 - p0
            let c2 = 2 * p0 - 5 * p1 + 4 * p2 - p3
            let c3 = 3 * (p1 - p2) + p3 - p0
            let center = 0.5 * (2 * p1 + f * (c1 + f * (c2 + f * c3)))
            var T = 0.5 * (c1 + f * (2 * c2 + f * 3 * c3))
            T = unit(T) ?? unit(p2 - p1) ?? (prevT != .zero ? prevT : SIMD3(0, 0, 1))

            let g = piece.guides[i] * (1 - f) + piece.guides[i + 1] * f
            let B = unit(g - dot(g, T) * T) ?? unit(prevB - dot(prevB, T) * T) ?? anyPerpendicular(T)
            let N = cross(T, B)
            prevT = T; prevB = B

            let color = piece.colors[i] * (1 - f) + piece.colors[i + 1] * f
            // A sample names the residue it is nearer along the spline.
            let feature = f < 0.5 ? piece.atoms[i] : piece.atoms[i + 1]
            var prof: CartoonProfile
            if piece.arrows[i] {
                prof = CartoonProfile(a: CartoonSizes.arrowHalfWidth + (coil.a - CartoonSizes.arrowHalfWidth) * f,
                                      b: CartoonSizes.strandHalfThickness, square: 1)
            } else {
                let e0 = piece.elements[i], e1 = piece.elements[i + 1]
                let q0 = profile(of: e0)
                prof = e0 == e1 ? q0 : CartoonProfile.lerp(q0, profile(of: e1), f * f * (3 - 2 * f))
            }

            // An arrowhead starting here (not at the piece's start): end the strand's tube at its
            // own width, then start the arrow with a back cap.
            if f == 0 && i > 0 && k < samples - 1 && piece.arrows[i] && !stripStart {
                let r = out.ring(center: center, binormal: B, normal: N, profile: CartoonSizes.strand,
                                 color: color, feature: feature, shape: shape)
                out.join(ring, r, m)
                stripStart = true
            }
            let r = out.ring(center: center, binormal: B, normal: N, profile: prof, color: color, feature: feature, shape: shape)
            if stripStart {
                out.cap(ring: r, m, center: center, facing: -T, forward: false)
                stripStart = false
            } else {
                out.join(ring, r, m)
            }
            ring = r
            if k == samples - 1 { out.cap(ring: r, m, center: center, facing: T, forward: true) }
        }

        for base in piece.bases {
            let start = p[base.residue]
            let axis = base.end - start
            guard let A = unit(axis) else { continue }
            let up = unit(base.planeNormal - dot(base.planeNormal, A) * A) ?? anyPerpendicular(A)
            let side = cross(A, up)
            out.box(start: start, end: base.end, up: up, side: side, halfWidth: CartoonSizes.baseHalfWidth,
                    halfThickness: CartoonSizes.baseHalfThickness, color: piece.colors[base.residue], feature: piece.atoms[base.residue])
        }
    }

    @inline(__always)
    static func unit(_ v: SIMD3<Float>) -> SIMD3<Float>? {
        let l = length(v)
        return l > 1e-5 && l.isFinite ? v / l : nil
    }

    static func anyPerpendicular(_ t: SIMD3<Float>) -> SIMD3<Float> {
        let axis: SIMD3<Float> = abs(t.x) < 0.9 ? SIMD3(1, 0, 0) : SIMD3(0, 1, 0)
        return unit(axis - dot(axis, t) * t) ?? SIMD3(0, 0, 1)
    }
}
