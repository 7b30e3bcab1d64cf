import Foundation
@testable import Molecule

/// Paths to the structure files kept in `Tests/Fixtures/structures` (copied from the shared set,
/// large ones gzip-compressed) and gemmi 0.7.5's counts for them from `MANIFEST.tsv`.
enum Fixtures {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")
    static let structures = root.appendingPathComponent("structures")
    static let moleculeFixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    /// The repository copy of a shared file: `name` itself or `name.gz`.
    static func path(_ name: String) -> String {
        let plain = structures.appendingPathComponent(name).path
        if FileManager.default.fileExists(atPath: plain) { return plain }
        return plain + ".gz"
    }

    static func read(_ name: String) throws -> Structure { try StructureReader.read(contentsOf: path(name)) }

    static func bytes(_ name: String) throws -> [UInt8] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path(name)))
        let bytes = [UInt8](data)
        return StructureReader.isGzip(bytes) ? try StructureReader.decompressGzip(bytes, fileName: name) : bytes
    }

    static func bytesAt(_ url: URL) throws -> [UInt8] { [UInt8](try Data(contentsOf: url)) }

    struct ManifestRow {
        var file: String
        var models: Int?
        var chains: Int?
        var residues: Int?
        var atoms: Int?
        var assemblies: Int?
    }

    static let manifest: [ManifestRow] = {
        guard let text = try? String(contentsOf: structures.appendingPathComponent("MANIFEST.tsv"), encoding: .utf8) else { return [] }
        var rows: [ManifestRow] = []
        let lines = text.split(whereSeparator: \.isNewline)  // the manifest has CRLF line ends
        guard let header = lines.first?.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) else { return [] }
        func col(_ name: String) -> Int { header.firstIndex(of: name) ?? -1 }
        for line in lines.dropFirst() {
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            func int(_ name: String) -> Int? { let i = col(name); return i >= 0 && i < f.count ? Int(f[i]) : nil }
            rows.append(ManifestRow(file: f[0], models: int("models"), chains: int("chains"), residues: int("residues_model1"),
                                    atoms: int("atoms_model1"), assemblies: int("assemblies")))
        }
        return rows
    }()

    /// Macromolecular files: PDB, mmCIF and BinaryCIF entries with coordinates.
    static let macromolecularFiles = ["1A8O.cif", "1A8O.pdb", "1LCD.cif", "1LCD.pdb", "2XHE.cif", "2XHE.pdb", "3JQH.cif",
                                      "3KPR.cif.gz", "3KPR.pdb.gz", "3jqh.bcif.gz", "4JSV.pdb", "5PTI.cif.gz", "6WG6.cif",
                                      "6wg6.bcif.gz", "mmcif_1ake_chimerax.cif", "mmcif_7cth.cif", "nmr_neopetrosiamide.pdb",
                                      "pdb1ake.pdb", "pdb1ejg.pdb", "pdb1ubi.pdb", "pdb4v8r_h36.pdb", "pdb4v8r_hex.pdb"]
    static let smallMoleculeFiles = ["ATP.cif", "HEM.cif", "standard_aa.cif", "chem_comp_bond-top100.cif",
                                     "CHEMBL2321810_scaffold.mol", "first_200.props.sdf", "benzene.xyz"]
}
