/// The file formats a model can be asked for, with their media types.
public enum ModelFormat: String, CaseIterable, Sendable {
    case glb, usdz, obj, mtl, stl, dae, ply

    public var mediaType: String {
        switch self {
        case .glb: return "model/gltf-binary"
        case .usdz: return "model/vnd.usdz+zip"
        case .obj: return "model/obj"
        case .mtl: return "model/mtl"
        case .stl: return "model/stl"
        case .dae: return "model/vnd.collada+xml"
        case .ply: return "application/x-ply"
        }
    }

    /// The scene in this format. OBJ refers to its materials as `mtlFileName`, which `.mtl` writes;
    /// a GLB is stored as `glb` says, and the meshopt one (our viewer's and WebXR's) and the float one
    /// (for checkers) say what each vertex draws (`EXT_mesh_features`), which Scene Viewer's
    /// quantised one leaves out.
    public func encode(_ scene: TriangleScene, mtlFileName: String = "model.mtl",
                       glb: GLBWriter.Encoding = .quantized) -> [UInt8] {
        // Only a GLB carries frames (an animation); the other formats show the first.
        let still = self == .glb ? scene : scene.firstFrame
        switch self {
        case .glb: return GLBWriter.write(scene, encoding: glb, features: glb != .quantized)
        case .usdz: return USDZWriter.write(still)
        case .obj: return OBJWriter.write(still, mtlFileName: mtlFileName).obj
        case .mtl: return OBJWriter.write(still, mtlFileName: mtlFileName).mtl
        case .stl: return STLWriter.write(still)
        case .dae: return DAEWriter.write(still)
        case .ply: return PLYWriter.write(still)
        }
    }
}
