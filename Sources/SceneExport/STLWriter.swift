import Geometry

/// Binary STL, for slicers and printing services: triangles only, no colour, no instancing.
///
/// An 80-byte header (starting "ProteinAR", never "solid", which would make readers take it for ASCII
/// STL), the UInt32 triangle count, then per triangle the facet normal, three corners and a zero
/// UInt16 attribute, all little-endian. Every node's mesh is baked through its transform (corners
/// swapped under a mirroring transform); the facet normal is computed from the baked corners, unit
/// length, or zero for a degenerate triangle. Coordinates stay in the scene's unit (metres); STL
/// itself has none, and many slicers assume millimetres.
public enum STLWriter {
    public static func write(_ scene: TriangleScene) -> [UInt8] {
        let prepared = PreparedScene(scene, useVertexColors: false)
        var triangles = 0
        for node in prepared.nodes { triangles += prepared.meshes[node.mesh].drawnTriangleCount }

        var header = Array("ProteinAR binary STL: ".utf8) + Array(prepared.name.utf8)
        header = Array(header.prefix(80))
        var world: [SIMD3<Float>] = []
        return makeBytes(count: 84 + 50 * triangles) { out in
            out.bytes(header)
            out.fill(0, count: 80 - header.count)
            out.u32(UInt32(truncatingIfNeeded: triangles))
            for node in prepared.nodes {
                let mesh = prepared.meshes[node.mesh]
                let a = node.affine
                world.removeAll(keepingCapacity: true)
                if a.isIdentity {
                    world.append(contentsOf: mesh.positions)
                } else {
                    for p in mesh.positions { world.append(a.point(p)) }
                }
                mesh.indices.withUnsafeBufferPointer { idx in
                    for part in mesh.parts {
                        for t in part.triangles {
                            let p0 = world[Int(idx[3 * t])]
                            var p1 = world[Int(idx[3 * t + 1])], p2 = world[Int(idx[3 * t + 2])]
                            if a.mirrors { swap(&p1, &p2) }
                            out.vec3(unit3(cross(p1 - p0, p2 - p0)) ?? .zero)
                            out.vec3(p0); out.vec3(p1); out.vec3(p2)
                            out.u16(0)
                        }
                    }
                }
            }
        }
    }
}
