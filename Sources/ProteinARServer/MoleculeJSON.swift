import Foundation
import Storage

/// How molecules appear in the API: the record's fields, links to its models, and (for one
/// molecule) the engine's details.
enum MoleculeJSON {
    static func value(_ r: MoleculeRecord) -> JSONText.Value {
        let base = "/api/molecules/\(r.id)"
        return .object([
            ("id", .string(r.id)),
            ("source", .string(r.source.rawValue)),
            ("title", .string(r.title)),
            ("description", r.description.map { .string($0) } ?? .null),
            ("method", r.method.map { .string($0) } ?? .null),
            ("resolution", r.resolution.map { .double($0) } ?? .null),
            ("organism", r.organism.map { .string($0) } ?? .null),
            ("atoms", .int(r.atoms)),
            ("residues", .int(r.residues)),
            ("chains", .int(r.chains)),
            ("format", .string(r.format)),
            ("fileSize", .int(r.fileSize)),
            ("addedAt", .string(iso(r.addedAt))),
            ("lastViewedAt", r.lastViewedAt.map { .string(iso($0)) } ?? .null),
            ("inLibrary", .bool(r.inLibrary)),
            ("links", .object([
                ("self", .string(base)),
                ("glb", .string(base + "/model.glb")),
                ("usdz", .string(base + "/model.usdz")),
                ("thumbnail", .string(base + "/thumbnail.png")),
                ("file", .string(base + "/file")),
            ])),
        ])
    }

    static func list(_ page: MoleculePage, query: MoleculeQuery) -> String {
        JSONText.render(.object([
            ("total", .int(page.total)),
            ("offset", .int(query.offset)),
            ("limit", .int(query.limit)),
            ("molecules", .array(page.molecules.map(value))),
        ]))
    }

    /// One molecule with `details`: chains with sequences, ligands, secondary structure, assemblies.
    static func detail(_ r: MoleculeRecord) -> String {
        guard case .object(var pairs) = value(r) else { return "{}" }
        pairs.append(("details", .raw(r.summaryJSON)))
        return JSONText.render(.object(pairs))
    }

    static func iso(_ d: Date) -> String {
        d.formatted(.iso8601)
    }
}
