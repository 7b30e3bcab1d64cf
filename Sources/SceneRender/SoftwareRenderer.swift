import Foundation
import Geometry
import SceneExport

/// How `SoftwareRenderer` draws a scene.
public struct RenderOptions: Sendable, Equatable {
    public enum Background: Sendable, Equatable {
        case white
        case transparent
        /// Linear RGB in 0...1.
        case color(SIMD3<Float>)
    }

    public var background: Background = .white
    /// Camera turn about the scene's vertical (Y) axis, in degrees; positive looks from the right.
    public var azimuth: Float = 30
    /// Camera height above the horizontal plane, in degrees.
    public var elevation: Float = 20
    /// Empty border on each side, as a fraction of the image side.
    public var margin: Float = 0.06
    /// Samples per pixel along each axis (2 renders at double size and averages 2×2 blocks).
    public var supersampling = 2
    /// Dark outline where the depth jumps (silhouettes and overlaps).
    public var outline = true
    /// Screen-space ambient occlusion: crevices darken.
    public var ambientOcclusion = true
    /// Depth cue: far parts fade towards the background (or white, when it is transparent).
    public var fog = true

    public init() {}
}

/// A CPU rasteriser for triangle scenes: orthographic camera on a 3/4 view of the scene's bounding box,
/// z-buffer, smooth shading (interpolated normals and colours), key + fill + ambient Blinn–Phong lighting,
/// ambient occlusion and depth fog, a depth-jump outline, and supersampled anti-aliasing.
/// Deterministic: the same scene and options give the same pixels.
public enum SoftwareRenderer {
    public static func render(_ scene: TriangleScene, width: Int, height: Int, options: RenderOptions = .init()) -> RGBAImage {
        let width = max(1, width), height = max(1, height)
        let ss = max(1, min(4, options.supersampling))
        let W = width * ss, H = height * ss
        let geometry = Geometry(scene)

        // Camera basis: `back` points from the scene towards the viewer.
        let az = options.azimuth * .pi / 180, el = options.elevation * .pi / 180
        let back = SIMD3<Float>(sin(az) * cos(el), sin(el), cos(az) * cos(el))
        var right = cross(SIMD3<Float>(0, 1, 0), back)
        right = length(right) > 1e-6 ? normalized(right) : SIMD3<Float>(1, 0, 0)
        let up = cross(back, right)

        // View-space coordinates: x right, y up, depth = distance in front of the viewer plane (larger = farther).
        let count = geometry.positions.count
        var view = [SIMD3<Float>](repeating: .zero, count: count)
        var lo = SIMD3<Float>(repeating: .infinity), hi = SIMD3<Float>(repeating: -.infinity)
        for i in 0..<count {
            let p = geometry.positions[i]
            let v = SIMD3<Float>(dot(p, right), dot(p, up), -dot(p, back))
            view[i] = v
            lo = pointwiseMin(lo, v); hi = pointwiseMax(hi, v)
        }
        var background = [Float](repeating: 0, count: 4)
        switch options.background {
        case .white: background = [1, 1, 1, 1]
        case .transparent: background = [1, 1, 1, 0]
        case .color(let c): background = [c.x, c.y, c.z, 1]
        }
        if count == 0 || geometry.triangles.isEmpty {
            return RGBAImage(filledWidth: width, height: height, linear: background)
        }

        // Fit the projected extent into the image, less the margin.
        let extent = pointwiseMax(hi - lo, SIMD3<Float>(repeating: 1e-12))
        let margin = min(max(options.margin, 0), 0.45)
        let scale = min(Float(W) * (1 - 2 * margin) / extent.x, Float(H) * (1 - 2 * margin) / extent.y)
        let mid = (lo + hi) * 0.5
        var sx = [Float](repeating: 0, count: count), sy = [Float](repeating: 0, count: count)
        for i in 0..<count {
            sx[i] = Float(W) * 0.5 + (view[i].x - mid.x) * scale
            sy[i] = Float(H) * 0.5 - (view[i].y - mid.y) * scale
        }

        // Visibility pass: nearest triangle and its barycentrics per sample.
        let pixels = W * H
        var depth = [Float](repeating: .infinity, count: pixels)
        var triangleID = [Int32](repeating: -1, count: pixels)
        var bary1 = [Float](repeating: 0, count: pixels), bary2 = [Float](repeating: 0, count: pixels)
        let tris = geometry.triangles
        depth.withUnsafeMutableBufferPointer { depthBuf in
        triangleID.withUnsafeMutableBufferPointer { idBuf in
        bary1.withUnsafeMutableBufferPointer { b1Buf in
        bary2.withUnsafeMutableBufferPointer { b2Buf in
            for t in 0..<(tris.count / 3) {
                let i0 = Int(tris[3 * t]), i1 = Int(tris[3 * t + 1]), i2 = Int(tris[3 * t + 2])
                let x0 = sx[i0], y0 = sy[i0], x1 = sx[i1], y1 = sy[i1], x2 = sx[i2], y2 = sy[i2]
                let area = (x1 - x0) * (y2 - y0) - (x2 - x0) * (y1 - y0)
                if !(abs(area) > 1e-12) { continue }
                let minX = max(0, Int((min(x0, x1, x2) - 0.5).rounded(.up)))
                let maxX = min(W - 1, Int((max(x0, x1, x2) - 0.5).rounded(.down)))
                let minY = max(0, Int((min(y0, y1, y2) - 0.5).rounded(.up)))
                let maxY = min(H - 1, Int((max(y0, y1, y2) - 0.5).rounded(.down)))
                if minX > maxX || minY > maxY { continue }
                let inv = 1 / area
                let z0 = view[i0].z, z1 = view[i1].z, z2 = view[i2].z
                // Barycentric weight of vertex 1 and 2 as affine functions of the sample position.
                let a1x = (y2 - y0) * inv, a1y = (x0 - x2) * inv
                let a2x = (y0 - y1) * inv, a2y = (x1 - x0) * inv
                let px0 = Float(minX) + 0.5, py0 = Float(minY) + 0.5
                let b1Start = ((px0 - x0) * (y2 - y0) - (x2 - x0) * (py0 - y0)) * inv
                let b2Start = ((x1 - x0) * (py0 - y0) - (px0 - x0) * (y1 - y0)) * inv
                let eps: Float = -1e-5
                var rowB1 = b1Start, rowB2 = b2Start
                for y in minY...maxY {
                    var b1 = rowB1, b2 = rowB2
                    let row = y * W
                    for x in minX...maxX {
                        let b0 = 1 - b1 - b2
                        if b1 >= eps && b2 >= eps && b0 >= eps {
                            let z = b0 * z0 + b1 * z1 + b2 * z2
                            let k = row + x
                            if z < depthBuf[k] {
                                depthBuf[k] = z; idBuf[k] = Int32(t); b1Buf[k] = b1; b2Buf[k] = b2
                            }
                        }
                        b1 += a1x; b2 += a2x
                    }
                    rowB1 += a1y; rowB2 += a2y
                }
            }
        }}}}

        // Normals to view space once per vertex.
        var viewNormals = [SIMD3<Float>](repeating: .zero, count: count)
        for i in 0..<count {
            let n = geometry.normals[i]
            viewNormals[i] = SIMD3<Float>(dot(n, right), dot(n, up), dot(n, back))
        }

        // Surface pass: interpolated view-space normal (towards the viewer) and base colour per sample.
        var surfaceNormal = [SIMD3<Float>](repeating: SIMD3(0, 0, 1), count: pixels)
        var surfaceColor = [SIMD3<Float>](repeating: .zero, count: pixels)
        for k in 0..<pixels {
            let t = Int(triangleID[k])
            if t < 0 { continue }
            let i0 = Int(tris[3 * t]), i1 = Int(tris[3 * t + 1]), i2 = Int(tris[3 * t + 2])
            let b1 = bary1[k], b2 = bary2[k], b0 = 1 - b1 - b2
            var n = viewNormals[i0] * b0 + viewNormals[i1] * b1 + viewNormals[i2] * b2
            let nl = length(n)
            n = nl > 1e-12 ? n / nl : SIMD3<Float>(0, 0, 1)
            if n.z < 0 { n = -n }  // two-sided: the face towards the viewer
            surfaceNormal[k] = n
            let source = geometry.triangleColor[t]
            surfaceColor[k] = source < 0
                ? geometry.colors[i0] * b0 + geometry.colors[i1] * b1 + geometry.colors[i2] * b2
                : geometry.materialColors[Int(source)]
        }

        // Screen-space ambient occlusion from the depth buffer.
        let diameter = length(extent)
        var occlusion = [Float](repeating: 1, count: options.ambientOcclusion ? pixels : 0)
        if options.ambientOcclusion {
            let radiusWorld = 0.035 * diameter
            let radiusPixels = max(2, min(Float(min(W, H)) * 0.06, radiusWorld * scale))
            let samples = 16
            var offsets: [(Int, Int, Float)] = []
            for s in 0..<samples {
                let r = radiusPixels * (Float(s) + 0.5) / Float(samples)
                let a = Float(s) * 2.399963  // golden angle spiral
                offsets.append((Int((r * cos(a)).rounded()), Int((r * sin(a)).rounded()), r / scale))
            }
            let bias = 0.002 * diameter
            depth.withUnsafeBufferPointer { d in
                for y in 0..<H {
                    for x in 0..<W {
                        let k = y * W + x
                        let z = d[k]
                        if !z.isFinite { continue }
                        // Depth slope of the tangent plane per pixel step (screen y points down).
                        let n = surfaceNormal[k]
                        let nz = max(n.z, 0.25)
                        let slopeX = n.x / nz / scale, slopeY = -n.y / nz / scale
                        var occluded: Float = 0
                        for (dx, dy, rw) in offsets {
                            let qx = x + dx, qy = y + dy
                            if qx < 0 || qy < 0 || qx >= W || qy >= H { continue }
                            let expected = z + slopeX * Float(dx) + slopeY * Float(dy)
                            let rise = expected - d[qy * W + qx]
                            if rise > bias {
                                // Closer occluders count fully; far-in-front ones (other objects) fade out.
                                let range = 4 * radiusWorld + rw
                                occluded += max(0, 1 - rise / range)
                            }
                        }
                        occlusion[k] = 1 - 0.75 * min(1, occluded / Float(samples) * 1.6)
                    }
                }
            }
        }

        // Shading pass, in linear RGB with alpha.
        let key = normalized(SIMD3<Float>(-0.45, 0.65, 0.62))
        let fill = normalized(SIMD3<Float>(0.6, -0.15, 0.5))
        let rim = normalized(SIMD3<Float>(0.1, 0.35, -0.9))
        let halfway = normalized(key + SIMD3<Float>(0, 0, 1))
        let fogColor = SIMD3<Float>(background[0], background[1], background[2])
        let zNear = lo.z, zRange = max(hi.z - lo.z, 1e-12)
        var color = [SIMD4<Float>](repeating: SIMD4(background[0], background[1], background[2], background[3]), count: pixels)
        for k in 0..<pixels {
            if triangleID[k] < 0 { continue }
            let n = surfaceNormal[k], base = surfaceColor[k]
            let ao = options.ambientOcclusion ? occlusion[k] : 1
            let diffuse = 0.78 * max(0, dot(n, key)) + 0.28 * max(0, dot(n, fill)) + 0.12 * max(0, dot(n, rim))
            let ambient: Float = 0.24
            let specular = 0.22 * pow(max(0, dot(n, halfway)), 48)
            var c = base * (ambient * ao + diffuse * (0.55 + 0.45 * ao)) + SIMD3<Float>(repeating: specular * ao)
            if options.fog {
                let f = (depth[k] - zNear) / zRange
                let amount = 0.45 * f * f
                c = c * (1 - amount) + fogColor * amount
            }
            color[k] = SIMD4(c.x, c.y, c.z, 1)
        }

        // Outline: a sample whose neighbourhood holds a clearly nearer surface turns dark.
        if options.outline {
            let threshold = 0.02 * diameter
            let reach = ss  // one output pixel wide
            let outlineColor = SIMD4<Float>(0.03, 0.03, 0.035, 1)
            var result = color
            for y in 0..<H {
                for x in 0..<W {
                    let k = y * W + x
                    let z = depth[k]
                    var nearest = Float.infinity
                    var weight: Float = 0
                    for dy in -reach...reach {
                        let qy = y + dy
                        if qy < 0 || qy >= H { continue }
                        for dx in -reach...reach {
                            let qx = x + dx
                            if qx < 0 || qx >= W || (dx == 0 && dy == 0) { continue }
                            let nz = depth[qy * W + qx]
                            if nz < nearest { nearest = nz }
                            if z - nz > threshold {
                                let dist = Float(max(abs(dx), abs(dy)))
                                weight = max(weight, dist <= Float(reach) - 0.5 ? 1 : 0.6)
                            }
                        }
                    }
                    if weight > 0 && nearest.isFinite {
                        let strength = 0.85 * weight
                        let c = color[k]
                        if c.w == 0 {
                            result[k] = SIMD4(outlineColor.x, outlineColor.y, outlineColor.z, strength)
                        } else {
                            result[k] = c * (1 - strength) + outlineColor * strength
                        }
                    }
                }
            }
            color = result
        }

        // Downsample (premultiplied alpha) and encode sRGB.
        var out = [UInt8](repeating: 0, count: width * height * 4)
        let norm = 1 / Float(ss * ss)
        for y in 0..<height {
            for x in 0..<width {
                var acc = SIMD4<Float>.zero
                for sy in 0..<ss {
                    for sx in 0..<ss {
                        let c = color[(y * ss + sy) * W + x * ss + sx]
                        acc += SIMD4(c.x * c.w, c.y * c.w, c.z * c.w, c.w)
                    }
                }
                acc *= norm
                let o = (y * width + x) * 4
                if acc.w > 0 {
                    out[o] = srgbByte(acc.x / acc.w); out[o + 1] = srgbByte(acc.y / acc.w); out[o + 2] = srgbByte(acc.z / acc.w)
                }
                out[o + 3] = UInt8((min(max(acc.w, 0), 1) * 255).rounded())
            }
        }
        return RGBAImage(width: width, height: height, pixels: out)
    }
}

/// The scene flattened into world space: every node's mesh transformed, one shared vertex list.
struct Geometry {
    var positions: [SIMD3<Float>] = []
    var normals: [SIMD3<Float>] = []
    /// Linear RGB per vertex (only meaningful for triangles whose `triangleColor` is -1).
    var colors: [SIMD3<Float>] = []
    var triangles: [UInt32] = []
    /// -1: interpolate vertex colours; otherwise an index into `materialColors`.
    var triangleColor: [Int32] = []
    var materialColors: [SIMD3<Float>] = []

    init(_ scene: TriangleScene) {
        materialColors = scene.materials.map { SIMD3(clamp01($0.baseColor.x), clamp01($0.baseColor.y), clamp01($0.baseColor.z)) }
        let grey = Int32(materialColors.count)
        materialColors.append(SIMD3(0.7, 0.7, 0.7))
        for node in scene.nodes {
            guard node.mesh >= 0, node.mesh < scene.meshes.count, node.transform.count == 16,
                  node.transform.allSatisfy({ $0.isFinite }) else { continue }
            let mesh = scene.meshes[node.mesh]
            let n = mesh.positions.count
            guard mesh.indices.allSatisfy({ Int($0) < n }) else { continue }
            let m = node.transform
            let c0 = SIMD3(m[0], m[1], m[2]), c1 = SIMD3(m[4], m[5], m[6]), c2 = SIMD3(m[8], m[9], m[10])
            let tr = SIMD3(m[12], m[13], m[14])
            let offset = UInt32(positions.count)
            let hasColors = mesh.colors.count == n
            for i in 0..<n {
                let p = mesh.positions[i]
                positions.append(c0 * p.x + c1 * p.y + c2 * p.z + tr)
                let q = i < mesh.normals.count ? mesh.normals[i] : SIMD3<Float>(0, 0, 1)
                let w = c0 * q.x + c1 * q.y + c2 * q.z
                let l = length(w)
                normals.append(l > 1e-12 && l.isFinite ? w / l : SIMD3(0, 0, 1))
                if hasColors {
                    let c = mesh.colors[i]
                    colors.append(SIMD3(clamp01(c.x), clamp01(c.y), clamp01(c.z)))
                } else {
                    colors.append(SIMD3(0.7, 0.7, 0.7))
                }
            }
            let triangleCount = mesh.indices.count / 3
            var material = [Int32](repeating: grey, count: triangleCount)
            for part in mesh.parts where part.material >= 0 && part.material < scene.materials.count {
                for t in part.triangles.clamped(to: 0..<triangleCount) { material[t] = Int32(part.material) }
            }
            for t in 0..<triangleCount {
                triangles.append(mesh.indices[3 * t] + offset)
                triangles.append(mesh.indices[3 * t + 1] + offset)
                triangles.append(mesh.indices[3 * t + 2] + offset)
                triangleColor.append(hasColors ? -1 : material[t])
            }
        }
    }
}

@inline(__always) func clamp01(_ x: Float) -> Float { x.isNaN ? 0 : min(max(x, 0), 1) }

/// Linear 0...1 to an 8-bit sRGB value.
@inline(__always) func srgbByte(_ linear: Float) -> UInt8 {
    let x = clamp01(linear)
    let s = x <= 0.0031308 ? 12.92 * x : 1.055 * pow(x, 1 / 2.4) - 0.055
    return UInt8((s * 255).rounded())
}
