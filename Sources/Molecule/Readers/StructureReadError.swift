/// Why a file could not be read, pointing at the place: the file, and a line or a byte offset.
public struct StructureReadError: Error, Sendable, Equatable, CustomStringConvertible {
    public var file: String
    /// 1-based line number for text formats.
    public var line: Int?
    /// 0-based byte offset for binary formats (or where lines do not apply).
    public var byteOffset: Int?
    /// Record or field concerned, e.g. "ATOM x (columns 31-38)" or "_atom_site.Cartn_x".
    public var field: String?
    public var message: String
    /// The input is refused for its size (it inflates beyond the limit, or is compressed twice),
    /// not because it is damaged.
    public var isTooLarge: Bool

    public init(file: String, line: Int? = nil, byteOffset: Int? = nil, field: String? = nil, message: String, isTooLarge: Bool = false) {
        self.file = file; self.line = line; self.byteOffset = byteOffset; self.field = field; self.message = message
        self.isTooLarge = isTooLarge
    }

    public var description: String {
        var s = file
        if let line { s += ":\(line)" } else if let byteOffset { s += ": byte \(byteOffset)" }
        s += ": "
        if let field { s += "\(field): " }
        return s + message
    }
}
