import Geometry
import MeshChecks
import Testing
@testable import RoomModels
import SceneExport

@Suite("Stroke tubes")
struct StrokeTubeTests {
    static let red = SIMD4<Float>(1, 0, 0, 1)
    static let cap8 = StrokeTubes.capTriangles(sides: 8)

    func dot3(_ a: SIMD3<Float>, _ b: SIMD3<Float>) -> Float { (a * b).sum() }
    func length(_ a: SIMD3<Float>) -> Float { dot3(a, a).squareRoot() }

    /// Closed and consistently wound: every directed edge appears once and its reverse once.
    func closed(_ mesh: TriangleMesh) -> Bool {
        var edges: [UInt64: Int] = [:]
        for t in 0..<mesh.triangleCount {
            for e in 0..<3 {
                let a = UInt64(mesh.indices[3 * t + e]), b = UInt64(mesh.indices[3 * t + (e + 1) % 3])
                if a == b { return false }
                edges[a << 32 | b, default: 0] += 1
            }
        }
        for (key, count) in edges {
            let reverse = (key & 0xFFFF_FFFF) << 32 | key >> 32
            if count != 1 || edges[reverse] != 1 { return false }
        }
        return true
    }

    func tube(_ points: [SIMD3<Float>], width: Float = 0.01, color: SIMD4<Float> = red) -> StrokeTube {
        StrokeTube(points: points, width: width, color: color)
    }

    /// Points on a helix about Y: radius `r`, `turns` turns rising `rise` per turn, `n` points.
    func helix(n: Int, r: Float = 0.1, turns: Float = 2, rise: Float = 0.05) -> [SIMD3<Float>] {
        (0..<n).map { i in
            let a = 2 * Double.pi * Double(turns) * Double(i) / Double(n - 1)
            return SIMD3(r * Float(Trig.cos(a)), rise * turns * Float(i) / Float(n - 1), r * Float(Trig.sin(a)))
        }
    }

    @Test("a single point is a dot: a closed sphere of the stroke's width")
    func dot() {
        let centre = SIMD3<Float>(0.2, 1.1, -0.4)
        let mesh = StrokeTubes.mesh([tube([centre], width: 0.02)])
        #expect(mesh.triangleCount == 2 * Self.cap8)
        #expect(mesh.triangleCount == 48)
        #expect(mesh.vertexCount == StrokeTubes.pieceVertices(rings: 1, sides: 8))
        #expect(meshProblems(mesh).isEmpty)
        #expect(windsOutward(mesh))
        #expect(closed(mesh))
        for (p, n) in zip(mesh.positions, mesh.normals) {
            #expect(abs(length(p - centre) - 0.01) < 1e-6)
            #expect(length((p - centre) / 0.01 - n) < 1e-4)
        }
        // Points that all fall within the spacing of the first are a dot too.
        let jitter = StrokeTubes.mesh([tube([centre, centre + SIMD3(0.001, 0, 0), centre])])
        #expect(jitter.triangleCount == 48)
        #expect(StrokeTubes.triangleCount([tube([centre])]) == 48)
    }

    @Test("two points: a capsule, closed, wound outwards, the stroke's width and colour")
    func twoPoints() {
        let a = SIMD3<Float>(0, 0, 0), b = SIMD3<Float>(0.3, 0.1, -0.2)
        let color = SIMD4<Float>(0.2, 0.5, 0.9, 1)
        let mesh = StrokeTubes.mesh([tube([a, b], width: 0.01, color: color)])
        #expect(mesh.triangleCount == 2 * 8 + 2 * Self.cap8)
        #expect(mesh.vertexCount == StrokeTubes.pieceVertices(rings: 2, sides: 8))
        #expect(meshProblems(mesh).isEmpty)
        #expect(windsOutward(mesh))
        #expect(closed(mesh))
        #expect(mesh.colors.allSatisfy { $0 == color })
        // Every vertex is the radius away from the segment (a capsule's surface).
        let axis = b - a, len2 = dot3(axis, axis)
        for p in mesh.positions {
            let s = min(max(dot3(p - a, axis) / len2, 0), 1)
            #expect(abs(length(p - (a + s * axis)) - 0.005) < 1e-5)
        }
        // The caps reach one radius past the ends.
        let along = mesh.positions.map { dot3($0 - a, axis) / len2.squareRoot() }
        #expect(abs(along.min()! + 0.005) < 1e-5 && abs(along.max()! - len2.squareRoot() - 0.005) < 1e-5)
    }

    @Test("triangle counts: sides × 2 per segment plus two caps, as counted beforehand", arguments: [3, 4, 6, 8, 12, 16])
    func counts(sides: Int) {
        let points = helix(n: 40)
        let mesh = StrokeTubes.mesh([tube(points)], sides: sides)
        #expect(mesh.triangleCount == 2 * sides * 39 + 2 * StrokeTubes.capTriangles(sides: sides))
        #expect(mesh.triangleCount == StrokeTubes.triangleCount([tube(points)], sides: sides))
        #expect(mesh.vertexCount == StrokeTubes.pieceVertices(rings: 40, sides: sides))
        #expect(meshProblems(mesh).isEmpty)
        #expect(windsOutward(mesh))
        #expect(closed(mesh))
        // Several strokes: the sum; the dot and the tube stay separate closed surfaces.
        let both = StrokeTubes.mesh([tube(points), tube([SIMD3(1, 1, 1)])], sides: sides)
        #expect(both.triangleCount == mesh.triangleCount + 2 * StrokeTubes.capTriangles(sides: sides))
        #expect(closed(both) && windsOutward(both))
    }

    @Test("no twist: rings follow the curve by parallel transport")
    func noTwist() {
        let sides = 8
        for points in [helix(n: 200), helix(n: 60, r: 0.05, turns: 3, rise: 0.01)] {
            let mesh = StrokeTubes.mesh([tube(points, width: 0.004)], sides: sides)
            let rings = points.count
            #expect(mesh.vertexCount == StrokeTubes.pieceVertices(rings: rings, sides: sides))
            // Frame of ring i: u is vertex 0's normal, v vertex sides/4's (90° round), t = u × v.
            func frame(_ i: Int) -> (SIMD3<Float>, SIMD3<Float>) {
                let u = mesh.normals[i * sides], v = mesh.normals[i * sides + sides / 4]
                return (u, cross(u, v))
            }
            for i in 0..<(rings - 1) {
                let (u0, t0) = frame(i), (u1, t1) = frame(i + 1)
                // The frame turns no more than the tangent does (a twist would add to it).
                let frameTurn = Double(min(1, dot3(u0, u1))), tangentTurn = Double(min(1, dot3(t0, t1)))
                #expect(frameTurn >= tangentTurn - 1e-4, "ring \(i): u turns more than t")
                // Corresponding vertices of consecutive rings face nearly the same way: no flip.
                for k in 0..<sides {
                    #expect(dot3(mesh.normals[i * sides + k], mesh.normals[(i + 1) * sides + k]) > 0.9)
                }
            }
        }
        // A straight stroke: every ring has the same frame.
        let line = (0..<20).map { SIMD3<Float>(Float($0) * 0.01, 0.5, 0.2) }
        let straight = StrokeTubes.mesh([tube(line, width: 0.004)])
        for i in 1..<20 { #expect(length(straight.normals[i * 8] - straight.normals[0]) < 1e-5) }
        // A planar curve: the frame's component along the plane's normal never changes.
        let circle = (0..<50).map { i -> SIMD3<Float> in
            let a = 1.5 * Double.pi * Double(i) / 49
            return SIMD3(0.2 * Float(Trig.cos(a)), 0.3, 0.2 * Float(Trig.sin(a)))
        }
        let planar = StrokeTubes.mesh([tube(circle, width: 0.004)])
        let up0 = planar.normals[0].y
        for i in 1..<50 { #expect(abs(planar.normals[i * 8].y - up0) < 1e-3) }
    }

    @Test("a turn past 90° splits the tube into closed pieces; gentler turns are mitred and keep the width")
    func corners() {
        let a = SIMD3<Float>(0, 0, 0), b = SIMD3<Float>(0.1, 0, 0)
        // 120°: two pieces of one segment each.
        let sharp = StrokeTubes.mesh([tube([a, b, b + SIMD3(-0.05, 0.0866, 0)])])
        #expect(sharp.triangleCount == 2 * (2 * 8 + 2 * Self.cap8))
        #expect(closed(sharp) && windsOutward(sharp) && meshProblems(sharp).isEmpty)
        // Turning back on itself: also split, still valid.
        let back = StrokeTubes.mesh([tube([a, b, a + SIMD3(0, 0.001, 0)])])
        #expect(back.triangleCount == 2 * (2 * 8 + 2 * Self.cap8))
        #expect(closed(back) && meshProblems(back).isEmpty)
        // 60°: one piece; the corner ring is stretched across the bend, so the tube keeps its
        // width along both segments (every corner-ring vertex is a radius from both segment lines).
        let c = b + SIMD3(0.05, 0.0866, 0)
        let gentle = StrokeTubes.mesh([tube([a, b, c], width: 0.01)])
        #expect(gentle.triangleCount == 2 * 8 * 2 + 2 * Self.cap8)
        #expect(closed(gentle) && windsOutward(gentle) && meshProblems(gentle).isEmpty)
        func distanceToLine(_ p: SIMD3<Float>, _ o: SIMD3<Float>, _ d: SIMD3<Float>) -> Float {
            let u = d / length(d)
            return length((p - o) - dot3(p - o, u) * u)
        }
        for k in 0..<8 {
            let p = gentle.positions[8 + k]
            #expect(abs(distanceToLine(p, a, b - a) - 0.005) < 1e-5 && abs(distanceToLine(p, b, c - b) - 0.005) < 1e-5)
        }
    }

    @Test("dense points are thinned to the spacing; the stroke's true end is kept")
    func spacing() {
        let points = (0...1000).map { SIMD3<Float>(Float($0) * 0.0001, 0, 0) }  // 10 cm in 0.1 mm steps
        // Radius 4.9 mm: points kept at least 2.45 mm apart, so every 25th (2.5 mm), 41 of them.
        let mesh = StrokeTubes.mesh([tube(points, width: 0.0098)])
        #expect(mesh.triangleCount == 2 * 8 * 40 + 2 * Self.cap8)
        let xs = mesh.positions.map(\.x)
        #expect(abs(xs.min()! + 0.0049) < 1e-5 && abs(xs.max()! - 0.1049) < 1e-5)
        // A stroke whose last points fall short of the spacing still ends at its last point.
        let short = StrokeTubes.mesh([tube(Array(points.prefix(990)), width: 0.0098)])
        #expect(abs(short.positions.map(\.x).max()! - (0.0989 + 0.0049)) < 1e-5)
        // Spacing 0 keeps every distinct point.
        #expect(StrokeTubes.triangleCount([tube(points, width: 0.01)], minimumSpacing: 0) > 2 * 8 * 900)
    }

    @Test("strokes that cannot be drawn are left out; nothing at all is an empty, valid scene")
    func badInput() {
        let nan = Float.nan
        let strokes = [tube([]), tube([SIMD3(nan, 0, 0)]), tube([SIMD3(0, 0, 0), SIMD3(1, 0, 0)], width: 0),
                       tube([SIMD3(0, 0, 0), SIMD3(1, 0, 0)], width: -1), tube([SIMD3(0, 0, 0)], width: .infinity)]
        #expect(StrokeTubes.mesh(strokes).triangleCount == 0)
        let (scene, report) = StrokeTubes.scene(strokes)
        #expect(scene.nodes.isEmpty && scene.meshes.isEmpty && report.skipped == 5 && report.strokes == 0)
        #expect(Array(GLBWriter.write(scene).prefix(4)) == Array("glTF".utf8))
        #expect(Array(USDZWriter.write(scene).prefix(2)) == [0x50, 0x4B])
        // Non-finite points are dropped from a stroke that has others; colours are clamped.
        let mixed = StrokeTubes.mesh([tube([SIMD3(0, 0, 0), SIMD3(nan, 1, 1), SIMD3(0.1, 0, 0)], color: SIMD4(2, -1, 0.5, 1))])
        #expect(mixed.triangleCount == 2 * 8 + 2 * Self.cap8)
        #expect(meshProblems(mixed).isEmpty)
        #expect(mixed.colors.allSatisfy { $0 == SIMD4(1, 0, 0.5, 1) })
    }

    @Test("scene: one mesh at the origin with the stroke material; the budget simplifies, never drops")
    func sceneAndBudget() throws {
        let strokes = (0..<50).map { s in tube(helix(n: 400).map { $0 + SIMD3(Float(s) * 0.3, 0, 0) }, width: 0.002) }
        let (scene, report) = StrokeTubes.scene(strokes)
        try scene.validate()
        #expect(scene.meshes.count == 1 && scene.nodes == [Node(name: "strokes", mesh: 0)])
        #expect(scene.materials == [StrokeTubes.material])
        #expect(report.notes.isEmpty && report.sides == 8 && report.strokes == 50)
        #expect(report.triangles == StrokeTubes.triangleCount(strokes))

        let (small, smallReport) = StrokeTubes.scene(strokes, options: StrokeTubeOptions(maxTriangles: 60_000))
        try small.validate()
        #expect(smallReport.triangles <= 60_000 && smallReport.triangles == small.triangleCount)
        #expect(smallReport.strokes == 50 && smallReport.notes.count == 1)
        #expect(smallReport.minimumSpacing > 0.5 || smallReport.sides < 8)
        // Even an impossible budget draws every stroke, as simply as it can.
        let (tiny, tinyReport) = StrokeTubes.scene(strokes, options: StrokeTubeOptions(maxTriangles: 10))
        #expect(tinyReport.sides == 4 && tinyReport.strokes == 50 && tiny.triangleCount > 10)
        #expect(tinyReport.notes.first?.contains("more than 10") == true)
    }

    @Test("points too far apart to merge: every stroke is drawn within the budget by keeping fewer points")
    func scatteredPoints() throws {
        // Thin strokes whose points lie metres apart stay a ring per point at any spacing.
        var generator = SystemRandomNumberGenerator()
        let strokes = (0..<40).map { _ in
            tube((0..<500).map { _ in SIMD3(Float.random(in: -5...5, using: &generator), Float.random(in: 0...3, using: &generator),
                                             Float.random(in: -5...5, using: &generator)) }, width: 0.0005)
        }
        #expect(StrokeTubes.triangleCount(strokes, sides: 4, minimumSpacing: 64) > 50_000)
        let (scene, report) = StrokeTubes.scene(strokes, options: StrokeTubeOptions(maxTriangles: 50_000))
        try scene.validate()
        #expect(report.triangles <= 50_000 && report.triangles == scene.triangleCount)
        #expect(report.strokes == 40 && report.notes.first?.contains("th point kept") == true)
    }

    @Test("#rrggbb to linear RGBA")
    func colors() {
        #expect(StrokeTubes.linearColor(hex: "#ffffff") == SIMD4(1, 1, 1, 1))
        #expect(StrokeTubes.linearColor(hex: "#000000") == SIMD4(0, 0, 0, 1))
        #expect(StrokeTubes.linearColor(hex: "#FF0000") == SIMD4(1, 0, 0, 1))
        let grey = StrokeTubes.linearColor(hex: "#808080")!
        #expect(abs(grey.x - 0.2158605) < 1e-4 && grey.x == grey.y && grey.y == grey.z)
        for bad in ["red", "#fff", "#12345g", "ffffff0", "#ffffff ", ""] { #expect(StrokeTubes.linearColor(hex: bad) == nil) }
    }
}
