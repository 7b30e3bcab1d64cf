import Foundation

/// The molecules a new library starts with, bundled in the package (`Starter/starter.tsv` lists
/// id, file and why each is worth a look).
public enum StarterLibrary {
    public struct Entry: Sendable {
        public var id: String
        public var fileName: String
        public var description: String
        public var bytes: [UInt8]
    }

    static let count = 12

    public static func entries() throws -> [Entry] {
        guard let folder = Bundle.module.url(forResource: "Starter", withExtension: nil) else {
            throw LibraryError.notFound("the starter library is missing from the package's resources")
        }
        let table = try String(contentsOf: folder.appendingPathComponent("starter.tsv"), encoding: .utf8)
        var out: [Entry] = []
        for line in table.split(separator: "\n") where !line.hasPrefix("#") {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 3 else { continue }
            let bytes = try [UInt8](Data(contentsOf: folder.appendingPathComponent(fields[1])))
            out.append(Entry(id: fields[0], fileName: fields[1], description: fields[2], bytes: bytes))
        }
        return out
    }
}
