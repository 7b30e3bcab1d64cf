import Testing
@testable import MoleculeMesh
import Molecule

/// What a context decides about the mesh a representation makes from it: how finely, which atoms,
/// in which colours. Benzene (12 atoms, carbon and hydrogen alternating) drawn as spheres.
@Suite("Mesh context")
struct MeshContextTests {
    static func benzene(detail: Int, visible: [Bool] = [], colors: [SIMD4<Float>] = []) throws -> MeshContext {
        let s = try MeshFixtures.load("benzene.xyz")
        let model = try #require(s.models.first)
        try #require(model.atomCount == 12)
        return MeshContext(structure: s, model: model, atomColors: colors, visible: visible, secondaryStructure: [],
                           bonds: BondList(), detail: detail)
    }

    /// Triangles of one sphere at detail 0...4 (icosphere frequencies 1, 2, 3, 4, 6).
    static let sphereTriangles = [20, 80, 180, 320, 720]

    @Test("the detail level sets how finely atoms are tessellated, clamped to 0...4")
    func detailSetsTessellation() throws {
        for (detail, triangles) in Self.sphereTriangles.enumerated() {
            #expect(Spacefill.build(try Self.benzene(detail: detail)).triangleCount == 12 * triangles, "detail \(detail)")
        }
        #expect(Spacefill.build(try Self.benzene(detail: -3)).triangleCount == 12 * 20)
        #expect(Spacefill.build(try Self.benzene(detail: 9)).triangleCount == 12 * 720)
        // Lowered on a context already made, as the level-of-detail search does: the mesh follows.
        var context = try Self.benzene(detail: 4)
        context.detail = 1
        #expect(Spacefill.build(context).triangleCount == 12 * 80)
    }

    @Test("no visibility given draws every atom; given, only the atoms marked visible")
    func visibility() throws {
        #expect(Spacefill.build(try Self.benzene(detail: 0)).triangleCount == 12 * 20)
        let carbons = (0..<12).map { $0 % 2 == 0 }
        #expect(Spacefill.build(try Self.benzene(detail: 0, visible: carbons)).triangleCount == 6 * 20)
        #expect(Spacefill.build(try Self.benzene(detail: 0, visible: [Bool](repeating: false, count: 12))).triangleCount == 0)
    }

    @Test("atom colours reach the vertices; atoms without one are drawn in the uniform colour")
    func colours() throws {
        let red = SIMD4<Float>(1, 0, 0, 1)
        let mesh = Spacefill.build(try Self.benzene(detail: 0, colors: [SIMD4<Float>](repeating: red, count: 6)))
        try #require(mesh.vertexCount > 0)
        #expect(mesh.colors.filter { $0 == red }.count == mesh.vertexCount / 2)
        #expect(mesh.colors.filter { $0 == ColorScheme.uniformColor }.count == mesh.vertexCount / 2)
    }
}
