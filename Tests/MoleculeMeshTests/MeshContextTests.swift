import Testing
@testable import MoleculeMesh
import Molecule

@Suite("Mesh context")
struct MeshContextTests {
    @Test func holdsAModel() {
        var s = Structure()
        s.models = [Model(number: 1)]
        let ctx = MeshContext(structure: s, model: s.models[0], atomColors: [], visible: [], secondaryStructure: [],
                              bonds: BondList(), detail: 2)
        #expect(ctx.detail == 2)
    }
}
