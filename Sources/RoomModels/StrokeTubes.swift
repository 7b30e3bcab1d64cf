import Geometry
import SceneExport

/// One stroke to draw as a tube: a polyline in metres, its width (the tube's diameter, metres) and
/// its colour (linear RGBA in 0...1; `StrokeTubes.linearColor(hex:)` converts "#rrggbb").
public struct StrokeTube: Sendable, Equatable {
    public var points: [SIMD3<Float>]
    public var width: Float
    public var color: SIMD4<Float>
    public init(points: [SIMD3<Float>], width: Float, color: SIMD4<Float>) {
        self.points = points; self.width = width; self.color = color
    }
}

/// How finely strokes are drawn, and how many triangles they may take together.
public struct StrokeTubeOptions: Sendable, Equatable {
    /// Sides of the round cross-section (clamped to 3...64).
    public var sides: Int
    /// Points closer than this many radii to the last point kept are merged into it (hand-drawn
    /// strokes are sampled far more densely than a tube needs).
    public var minimumSpacing: Float
    /// Most triangles for all strokes together. Past it the strokes are simplified: points kept
    /// sparser (up to 4 radii apart), then 6 and 4 sides, then sparser again (up to 64 radii), then
    /// every 2nd, 4th, 8th… point of each stroke (its ends kept), until it fits or every stroke is
    /// down to its two ends (nothing is left out).
    public var maxTriangles: Int

    public init(sides: Int = 8, minimumSpacing: Float = 0.5, maxTriangles: Int = 500_000) {
        self.sides = sides; self.minimumSpacing = minimumSpacing; self.maxTriangles = maxTriangles
    }
}

/// What `StrokeTubes.scene` drew.
public struct StrokeTubeReport: Sendable, Equatable {
    public var triangles = 0
    /// Strokes drawn (as tubes or dots).
    public var strokes = 0
    /// Strokes left out: no finite point, or a width that is not a positive finite number.
    public var skipped = 0
    /// The cross-section and spacing used, after any simplification.
    public var sides = 0
    public var minimumSpacing: Float = 0
    /// Simplifications, in words, for the caller's report.
    public var notes: [String] = []
    public init() {}
}

/// Strokes as closed tubes, for exporting drawings with the scene writers.
///
/// - Each stroke is a tube of `sides` sides whose diameter is the stroke's width, swept along its
///   points. Cross-sections are framed by parallel transport (each ring's frame is the previous one
///   turned by the smallest rotation that takes the previous tangent to this one), so the tube does
///   not twist however the stroke winds.
/// - Interior rings stand on the bisector of their two segments and are stretched across the bend
///   (a mitre, at most 1/cos 45°), so the tube keeps its width through gentle turns. Where a stroke
///   turns by more than 90° the tube is split there into two pieces, each closed, which meet round.
/// - Ends are closed by hemispheres (`max(2, sides / 4)` bands of latitude and a pole) sharing the
///   end ring, so each piece is a closed, consistently wound surface. A stroke whose points all
///   fall within the minimum spacing of its first point is a dot: a sphere of the stroke's width
///   (two hemispheres on one ring, poles along +Y and −Y).
/// - Vertex normals are the round cross-section's radial directions (unit); triangles wind
///   counter-clockwise seen from outside; vertex colours are the stroke's colour. The mesh has one
///   part, material 0.
/// - Vertex order, per tube piece: its rings (`sides` vertices each, from the frame's first axis
///   turning towards the second), then the start cap's inner rings and pole, then the end cap's;
///   a dot is its ring, then the lower cap, then the upper cap.
public enum StrokeTubes {
    /// The material `scene` gives strokes (white: the vertex colours replace its RGB).
    public static let material = Material(name: "stroke", baseColor: SIMD4(1, 1, 1, 1), metallic: 0, roughness: 0.6)

    /// Sides accepted; other values are clamped into this range.
    public static let sideRange = 3...64

    /// Latitude bands of an end cap (a hemisphere) for a cross-section of `sides` sides.
    public static func capBands(sides: Int) -> Int { max(2, clampSides(sides) / 4) }

    /// Triangles of one end cap.
    public static func capTriangles(sides: Int) -> Int {
        let n = clampSides(sides)
        return n * (2 * (capBands(sides: n) - 1) + 1)
    }

    /// Vertices one end cap adds to its end ring.
    public static func capVertices(sides: Int) -> Int {
        let n = clampSides(sides)
        return n * (capBands(sides: n) - 1) + 1
    }

    /// Triangles of one tube piece through `rings` points (a dot when `rings` is 1).
    public static func pieceTriangles(rings: Int, sides: Int) -> Int {
        let n = clampSides(sides)
        return 2 * n * max(0, rings - 1) + 2 * capTriangles(sides: n)
    }

    /// Vertices of one tube piece through `rings` points (a dot when `rings` is 1).
    public static func pieceVertices(rings: Int, sides: Int) -> Int {
        let n = clampSides(sides)
        return n * max(1, rings) + 2 * capVertices(sides: n)
    }

    /// "#rrggbb" (either case) as linear RGBA with alpha 1, or nil when it is not that form.
    public static func linearColor(hex: String) -> SIMD4<Float>? {
        let u = Array(hex.utf8)
        guard u.count == 7, u[0] == 0x23 else { return nil }
        var value: UInt32 = 0
        for c in u[1...] {
            let digit: UInt32
            switch c {
            case 0x30...0x39: digit = UInt32(c - 0x30)
            case 0x41...0x46: digit = UInt32(c - 0x41 + 10)
            case 0x61...0x66: digit = UInt32(c - 0x61 + 10)
            default: return nil
            }
            value = value << 4 | digit
        }
        return SRGB.linear(hex: value)
    }

    /// Triangles `mesh` would make for these strokes (exact), without building them.
    public static func triangleCount(_ strokes: [StrokeTube], sides: Int = 8, minimumSpacing: Float = 0.5) -> Int {
        let n = clampSides(sides)
        var total = 0
        for stroke in strokes {
            guard let pieces = plan(stroke, spacing: minimumSpacing) else { continue }
            for piece in pieces { total += pieceTriangles(rings: piece.count, sides: n) }
        }
        return total
    }

    /// All strokes as one mesh (one part, material 0). Strokes without a finite point or with a
    /// width that is not positive and finite are left out; non-finite points are dropped.
    public static func mesh(_ strokes: [StrokeTube], sides: Int = 8, minimumSpacing: Float = 0.5,
                            name: String = "strokes") -> TriangleMesh {
        let n = clampSides(sides)
        var plans: [(StrokeTube, [[SIMD3<Float>]])] = []
        var vertices = 0, triangles = 0
        for stroke in strokes {
            guard let pieces = plan(stroke, spacing: minimumSpacing) else { continue }
            plans.append((stroke, pieces))
            for piece in pieces {
                vertices += pieceVertices(rings: piece.count, sides: n)
                triangles += pieceTriangles(rings: piece.count, sides: n)
            }
        }
        var sweep = TubeSweep(sides: n, vertexCapacity: vertices, triangleCapacity: triangles)
        for (stroke, pieces) in plans { sweep.add(pieces, radius: stroke.width / 2, color: clampedColor(stroke.color)) }
        var mesh = TriangleMesh(name: name)
        mesh.positions = sweep.positions; mesh.normals = sweep.normals; mesh.colors = sweep.colors; mesh.indices = sweep.indices
        if !mesh.indices.isEmpty { mesh.parts = [TriangleMesh.Part(triangles: 0..<mesh.triangleCount, material: 0)] }
        return mesh
    }

    /// The strokes as a scene for the writers: one mesh placed at the origin (room coordinates are
    /// the scene's), material `StrokeTubes.material`, simplified to stay within
    /// `options.maxTriangles`. No strokes (or none drawable) give a scene with no meshes or nodes,
    /// which every writer turns into a valid, empty file.
    public static func scene(_ strokes: [StrokeTube], options: StrokeTubeOptions = StrokeTubeOptions(),
                             name: String = "strokes") -> (TriangleScene, StrokeTubeReport) {
        var report = StrokeTubeReport()
        var sides = clampSides(options.sides)
        var spacing = options.minimumSpacing.isFinite ? max(options.minimumSpacing, 0) : 0.5
        let requested = (sides, spacing)
        var count = triangleCount(strokes, sides: sides, minimumSpacing: spacing)
        while count > options.maxTriangles {
            if spacing < 4 { spacing = spacing <= 0 ? 0.5 : min(spacing * 2, 4) }
            else if sides > 6 { sides = 6 }
            else if sides > 4 { sides = 4 }
            else if spacing < 64 { spacing = min(spacing * 2, 64) }
            else { break }
            count = triangleCount(strokes, sides: sides, minimumSpacing: spacing)
        }
        // Points far apart (thin strokes, scattered points) stay rings however sparse the spacing:
        // then only fewer points fit the budget.
        var drawn = strokes
        var stride = 1
        while count > options.maxTriangles, drawn.contains(where: { $0.points.count > 2 }) {
            stride *= 2
            drawn = strokes.map { thinned($0, every: stride) }
            count = triangleCount(drawn, sides: sides, minimumSpacing: spacing)
        }
        if (sides, spacing) != requested {
            report.notes.append("strokes simplified to \(sides) sides with points at least \(spacing) radii apart"
                                + (stride > 1 ? ", every \(stride)th point kept" : "")
                                + (count > options.maxTriangles ? ", still \(count) triangles, more than \(options.maxTriangles)"
                                                                : " to stay under \(options.maxTriangles) triangles"))
        }
        report.strokes = strokes.reduce(0) { $0 + (drawable($1) ? 1 : 0) }
        report.skipped = strokes.count - report.strokes
        report.sides = sides
        report.minimumSpacing = spacing

        var scene = TriangleScene(name: name)
        let mesh = self.mesh(drawn, sides: sides, minimumSpacing: spacing, name: name)
        report.triangles = mesh.triangleCount
        guard mesh.triangleCount > 0 else { return (scene, report) }
        scene.materials = [material]
        scene.meshes = [mesh]
        scene.nodes = [Node(name: name, mesh: 0)]
        return (scene, report)
    }

    // MARK: Planning

    /// The stroke's finite points, every `stride`th of them and its last (so a drawable stroke stays one).
    static func thinned(_ stroke: StrokeTube, every stride: Int) -> StrokeTube {
        let finite = stroke.points.filter { $0.x.isFinite && $0.y.isFinite && $0.z.isFinite }
        guard finite.count > 2 else { return StrokeTube(points: finite, width: stroke.width, color: stroke.color) }
        var kept = Swift.stride(from: 0, to: finite.count - 1, by: stride).map { finite[$0] }
        kept.append(finite[finite.count - 1])
        return StrokeTube(points: kept, width: stroke.width, color: stroke.color)
    }

    static func clampSides(_ sides: Int) -> Int { min(max(sides, sideRange.lowerBound), sideRange.upperBound) }

    static func clampedColor(_ c: SIMD4<Float>) -> SIMD4<Float> {
        guard c.x.isFinite, c.y.isFinite, c.z.isFinite, c.w.isFinite else { return SIMD4(0.5, 0.5, 0.5, 1) }
        return SIMD4(min(max(c.x, 0), 1), min(max(c.y, 0), 1), min(max(c.z, 0), 1), min(max(c.w, 0), 1))
    }

    /// Whether `plan` draws the stroke: a positive finite width and a finite point.
    static func drawable(_ stroke: StrokeTube) -> Bool {
        let radius = stroke.width / 2
        return radius.isFinite && radius > 0 && stroke.points.contains { $0.x.isFinite && $0.y.isFinite && $0.z.isFinite }
    }

    /// A turn sharper than this (the cosine between segment directions) splits the tube.
    static let splitCosine: Float = 0

    /// The stroke's pieces: runs of points at least `spacing` radii apart, split at sharp turns
    /// (the corner point ends one piece and starts the next); one piece of one point for a dot; nil
    /// when the stroke cannot be drawn.
    static func plan(_ stroke: StrokeTube, spacing: Float) -> [[SIMD3<Float>]]? {
        let radius = stroke.width / 2
        guard radius.isFinite, radius > 0 else { return nil }
        let step = max(spacing * radius, radius * 1e-3)
        let step2 = step * step
        var kept: [SIMD3<Float>] = []
        var last: SIMD3<Float>?
        for p in stroke.points where p.x.isFinite && p.y.isFinite && p.z.isFinite {
            last = p
            if let q = kept.last, lengthSquared(p - q) < step2 { continue }
            kept.append(p)
        }
        guard let end = last else { return nil }
        // Keep the stroke's true end: it replaces the last point kept when that is close to it.
        if kept.count >= 2, kept[kept.count - 1] != end {
            kept[kept.count - 1] = end
            if lengthSquared(end - kept[kept.count - 2]) < step2 * 1e-4 { kept.removeLast() }
        }
        guard kept.count >= 2 else { return [kept] }
        var pieces: [[SIMD3<Float>]] = []
        var current: [SIMD3<Float>] = [kept[0]]
        for i in 1..<kept.count {
            current.append(kept[i])
            if i + 1 < kept.count {
                let a = kept[i] - kept[i - 1], b = kept[i + 1] - kept[i]
                let c = dot(a, b) / (lengthSquared(a) * lengthSquared(b)).squareRoot()
                if !(c >= splitCosine) {
                    pieces.append(current)
                    current = [kept[i]]
                }
            }
        }
        pieces.append(current)
        return pieces
    }
}

/// Sweeps planned pieces into vertex and index arrays.
struct TubeSweep {
    var positions: [SIMD3<Float>] = []
    var normals: [SIMD3<Float>] = []
    var colors: [SIMD4<Float>] = []
    var indices: [UInt32] = []
    let ring: RingTemplate
    /// Cosines and sines of the caps' latitudes, from the equator (excluded) towards the pole (excluded).
    let latitudes: [(Float, Float)]
    /// At most this stretch across a bend (1/cos 45°, the widest mitre before a split).
    static let maxMitre: Float = 1 / (0.5 as Float).squareRoot()

    init(sides: Int, vertexCapacity: Int = 0, triangleCapacity: Int = 0) {
        ring = RingTemplate(sides: sides)
        let bands = StrokeTubes.capBands(sides: sides)
        latitudes = (1..<bands).map { j in
            let phi = Double.pi / 2 * Double(j) / Double(bands)
            return (Float(Trig.cos(phi)), Float(Trig.sin(phi)))
        }
        positions.reserveCapacity(vertexCapacity); normals.reserveCapacity(vertexCapacity)
        colors.reserveCapacity(vertexCapacity); indices.reserveCapacity(3 * triangleCapacity)
    }

    /// A unit vector perpendicular to unit `t`.
    static func perpendicular(to t: SIMD3<Float>) -> SIMD3<Float> {
        let a = abs(t.x), b = abs(t.y), c = abs(t.z)
        let axis: SIMD3<Float> = a <= b && a <= c ? SIMD3(1, 0, 0) : (b <= c ? SIMD3(0, 1, 0) : SIMD3(0, 0, 1))
        let w = axis - dot(axis, t) * t
        return w / lengthSquared(w).squareRoot()
    }

    /// `u` (perpendicular to unit `a`) turned by the smallest rotation taking `a` to unit `b`, made
    /// exactly perpendicular to `b` again. A half turn (b ≈ −a) turns about `u` itself.
    static func transport(_ u: SIMD3<Float>, from a: SIMD3<Float>, to b: SIMD3<Float>) -> SIMD3<Float> {
        let c = dot(a, b)
        var w = u
        if c > -0.9999 {
            let k = cross(a, b)
            w = u * c + cross(k, u) + k * (dot(k, u) / (1 + c))
        }
        w -= dot(w, b) * b
        let l2 = lengthSquared(w)
        guard l2 > 1e-12, l2.isFinite else { return perpendicular(to: b) }
        return w / l2.squareRoot()
    }

    mutating func add(_ pieces: [[SIMD3<Float>]], radius: Float, color: SIMD4<Float>) {
        if pieces.count == 1, pieces[0].count == 1 {
            sphere(at: pieces[0][0], radius: radius, color: color)
            return
        }
        var u: SIMD3<Float>?
        var previousTangent = SIMD3<Float>(0, 0, 0)
        for piece in pieces where piece.count >= 2 {
            let m = piece.count
            var directions: [SIMD3<Float>] = []
            directions.reserveCapacity(m - 1)
            for i in 0..<(m - 1) {
                let d = piece[i + 1] - piece[i]
                directions.append(d / lengthSquared(d).squareRoot())
            }
            let first = UInt32(positions.count)
            var firstFrame = (SIMD3<Float>(0, 0, 0), SIMD3<Float>(0, 0, 0), SIMD3<Float>(0, 0, 0))
            var lastFrame = firstFrame
            for i in 0..<m {
                // Tangent: the segment's direction at the ends, the bisector inside.
                var t: SIMD3<Float>
                var bend = SIMD3<Float>(0, 0, 0), stretch: Float = 1
                if i == 0 { t = directions[0] } else if i == m - 1 { t = directions[m - 2] } else {
                    let s = directions[i - 1] + directions[i]
                    let l2 = lengthSquared(s)
                    t = l2 > 1e-12 ? s / l2.squareRoot() : directions[i]
                    let b = directions[i] - directions[i - 1]
                    let b2 = lengthSquared(b)
                    if b2 > 1e-12 {
                        bend = b / b2.squareRoot()
                        stretch = min(1 / max(dot(t, directions[i]), 1e-3), Self.maxMitre)
                    }
                }
                let frame = u.map { Self.transport($0, from: previousTangent, to: t) } ?? Self.perpendicular(to: t)
                u = frame
                previousTangent = t
                let v = cross(t, frame)
                if i == 0 { firstFrame = (frame, v, t) }
                if i == m - 1 { lastFrame = (frame, v, t) }
                for k in 0..<ring.sides {
                    let n = ring.cosines[k] * frame + ring.sines[k] * v
                    var offset = radius * n
                    if stretch > 1 { offset += (stretch - 1) * dot(offset, bend) * bend }
                    positions.append(piece[i] + offset); normals.append(n); colors.append(color)
                }
            }
            let n = UInt32(ring.sides)
            for i in 0..<UInt32(m - 1) { band(from: first + i * n, to: first + (i + 1) * n, outward: true) }
            cap(equator: first, center: piece[0], frame: firstFrame, pole: -1, radius: radius, color: color)
            cap(equator: first + UInt32(m - 1) * n, center: piece[m - 1], frame: lastFrame, pole: 1, radius: radius, color: color)
        }
    }

    /// A sphere of `radius` at `p`: one ring round the equator (in the XZ plane), two caps.
    mutating func sphere(at p: SIMD3<Float>, radius: Float, color: SIMD4<Float>) {
        let t = SIMD3<Float>(0, 1, 0), u = SIMD3<Float>(1, 0, 0)
        let v = cross(t, u)
        let first = UInt32(positions.count)
        for k in 0..<ring.sides {
            let n = ring.cosines[k] * u + ring.sines[k] * v
            positions.append(p + radius * n); normals.append(n); colors.append(color)
        }
        cap(equator: first, center: p, frame: (u, v, t), pole: -1, radius: radius, color: color)
        cap(equator: first, center: p, frame: (u, v, t), pole: 1, radius: radius, color: color)
    }

    @inline(__always) mutating func triangle(_ a: UInt32, _ b: UInt32, _ c: UInt32) {
        indices.append(a); indices.append(b); indices.append(c)
    }

    /// Triangles between two rings of `sides` vertices. With the rings' frame (u, v, t)
    /// right-handed and the second ring further along `t` (or nearer the +t pole), `outward` winds
    /// them counter-clockwise seen from outside; otherwise pass false.
    mutating func band(from a: UInt32, to b: UInt32, outward: Bool) {
        let n = UInt32(ring.sides)
        for k in 0..<n {
            let k1 = k + 1 == n ? 0 : k + 1
            let i0 = a + k, i1 = a + k1, j0 = b + k, j1 = b + k1
            if outward {
                triangle(i0, i1, j1); triangle(i0, j1, j0)
            } else {
                triangle(i0, j1, i1); triangle(i0, j0, j1)
            }
        }
    }

    /// A hemisphere closing the ring at `equator` (centre `center`, frame (u, v, t)) towards
    /// `pole`·t: +1 at a piece's end, −1 at its start.
    mutating func cap(equator: UInt32, center: SIMD3<Float>, frame: (SIMD3<Float>, SIMD3<Float>, SIMD3<Float>),
                      pole: Float, radius: Float, color: SIMD4<Float>) {
        let (u, v, t) = frame
        let outward = pole > 0
        var previous = equator
        for (c, s) in latitudes {
            let start = UInt32(positions.count)
            for k in 0..<ring.sides {
                var n = c * (ring.cosines[k] * u + ring.sines[k] * v) + (s * pole) * t
                n /= lengthSquared(n).squareRoot()
                positions.append(center + radius * n); normals.append(n); colors.append(color)
            }
            band(from: previous, to: start, outward: outward)
            previous = start
        }
        let tip = UInt32(positions.count)
        positions.append(center + (radius * pole) * t); normals.append(pole * t); colors.append(color)
        let n = UInt32(ring.sides)
        for k in 0..<n {
            let k1 = k + 1 == n ? 0 : k + 1
            if outward { triangle(previous + k, previous + k1, tip) } else { triangle(previous + k, tip, previous + k1) }
        }
    }
}
