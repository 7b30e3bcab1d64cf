import MoleculeLibrary
import MoleculeMesh
import Testing

/// A file that reads but holds no atom (a PDB header alone): asking for its model is a bad request
/// whose message says what the file is.
@Suite("A file without atoms")
struct NoAtomsTests {
    static let header = Array("""
        HEADER    VIRAL PROTEIN                           20-MAY-98   1A8O              
        TITLE     JUST A HEADER
        CRYST1   41.980   41.980   88.920  90.00  90.00  90.00 P 43 21 2     8
        END

        """.utf8)

    @Test("a model of a header without atoms is a 400 naming the title")
    func model() {
        #expect {
            try LibraryService.scene(Self.header, fileName: "h.pdb", options: MoleculeSceneOptions())
        } throws: { error in
            guard case LibraryError.badRequest(let message) = error else { return false }
            return message == "this file has no atoms: only its header (title 'JUST A HEADER')"
        }
    }
}
