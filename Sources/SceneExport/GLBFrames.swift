import TextOutput

/// A scene's frames (an NMR ensemble's models) as a glTF animation that Scene Viewer and any glTF
/// player runs in a loop: one parent node per frame over that frame's mesh nodes, its `scale` 1
/// while the frame shows and 0 otherwise, in STEP keys. Node visibility, because glTF has no
/// visibility channel but the `KHR_node_visibility` extension, which Scene Viewer does not read;
/// not morph targets, which need one topology for every frame, and the models' meshes are each
/// built (and simplified) on their own.
struct GLBFrames {
    let frames: [[Int]]
    let seconds: Float
    /// The first frame node's index: they follow the scene's nodes.
    let firstNode: Int
    /// The scene's nodes that no frame holds (shown throughout).
    let loose: [Int]
    /// Where this writer's views and accessors start, once the mesh's are counted.
    var firstView = 0
    var firstAccessor = 0

    init?(_ prepared: PreparedScene) {
        guard prepared.frames.count > 1 else { return nil }
        frames = prepared.frames
        seconds = prepared.frameSeconds
        firstNode = prepared.nodes.count
        let framed = Set(prepared.frames.joined())
        loose = prepared.nodes.indices.filter { !framed.contains($0) }
    }

    /// Key times: one per frame, and one more that ends the loop on the first frame's state.
    var keyCount: Int { frames.count + 1 }

    /// The scene's root nodes: each frame's node, and the nodes no frame holds.
    var roots: [Int] { frames.indices.map { firstNode + $0 } + loose }

    /// The key times, then each frame's scales at those times.
    func views() -> [GLBView] {
        let n = keyCount
        var out = [GLBView(bytes: makeBytes(count: n * 4) { o in for k in 0..<n { o.f32(Float(k) * seconds) } },
                           count: n, stride: 4, target: 0, declaresStride: false)]
        for f in frames.indices {
            out.append(GLBView(bytes: makeBytes(count: n * 12) { o in
                for k in 0..<n {
                    let s: Float = k % frames.count == f ? 1 : 0
                    o.vec3(SIMD3(repeating: s))
                }
            }, count: n, stride: 12, target: 0, declaresStride: false))
        }
        return out
    }

    /// The frame nodes, each leading with a comma: the first frame shows, the others start at scale 0.
    func writeNodes(_ j: inout TextBuffer) {
        for (f, children) in frames.enumerated() {
            j.text(",{\"name\":\"model \(f + 1)\",\"children\":[")
            for (i, c) in children.enumerated() { if i > 0 { j.byte(44) }; j.int(c) }
            j.text(f == 0 ? "]}" : "],\"scale\":[0,0,0]}")
        }
    }

    /// The accessors of `views()`, each leading with a comma (the input's min and max, as glTF asks).
    func writeAccessors(_ j: inout TextBuffer) {
        j.text(",{\"bufferView\":"); j.int(firstView)
        j.text(",\"componentType\":5126,\"count\":"); j.int(keyCount)
        j.text(",\"type\":\"SCALAR\",\"min\":[0],\"max\":["); j.text(Double(Float(keyCount - 1) * seconds).description); j.text("]}")
        for f in frames.indices {
            j.text(",{\"bufferView\":"); j.int(firstView + 1 + f)
            j.text(",\"componentType\":5126,\"count\":"); j.int(keyCount); j.text(",\"type\":\"VEC3\"}")
        }
    }

    /// `"animations"`, leading with a comma: one animation, a channel and a sampler per frame.
    func writeAnimation(_ j: inout TextBuffer) {
        j.text(",\"animations\":[{\"name\":\"models\",\"channels\":[")
        for f in frames.indices {
            if f > 0 { j.byte(44) }
            j.text("{\"sampler\":"); j.int(f); j.text(",\"target\":{\"node\":"); j.int(firstNode + f); j.text(",\"path\":\"scale\"}}")
        }
        j.text("],\"samplers\":[")
        for f in frames.indices {
            if f > 0 { j.byte(44) }
            j.text("{\"input\":"); j.int(firstAccessor)
            j.text(",\"output\":"); j.int(firstAccessor + 1 + f); j.text(",\"interpolation\":\"STEP\"}")
        }
        j.text("]}]")
    }
}
