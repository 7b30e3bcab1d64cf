/// The one JSON string escaper (RFC 8259 §7): `"` and `\` escaped, newline, carriage return and tab
/// as `\n`, `\r`, `\t`, other control characters as `\u00XX`; everything else (UTF-8 included) as it
/// is. Runs of plain text are copied whole, so ids and names cost a check and a copy.
public enum JSONString {
    /// Whether the byte must be escaped inside a JSON string.
    @inlinable
    public static func needsEscape(_ b: UInt8) -> Bool { b < 0x20 || b == 0x22 || b == 0x5C }

    /// The escape of one byte that needs one.
    public static func escape(_ b: UInt8) -> String {
        switch b {
        case 0x22: return "\\\""
        case 0x5C: return "\\\\"
        case 0x0A: return "\\n"
        case 0x0D: return "\\r"
        case 0x09: return "\\t"
        default: return "\\u00" + String(hexDigits[Int(b >> 4)]) + String(hexDigits[Int(b & 15)])
        }
    }

    /// `s` in quotes, escaped, appended to `out`.
    public static func append(_ s: String, to out: inout String) {
        out += "\""
        if s.utf8.allSatisfy({ !needsEscape($0) }) {
            out += s
        } else {
            var run = s.utf8.startIndex
            for i in s.utf8.indices where needsEscape(s.utf8[i]) {
                out += s[run..<i]
                out += escape(s.utf8[i])
                run = s.utf8.index(after: i)
            }
            out += s[run...]
        }
        out += "\""
    }

    /// `s` in quotes, escaped.
    public static func quoted(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count + 2)
        append(s, to: &out)
        return out
    }

    private static let hexDigits: [Character] = Array("0123456789abcdef")
}
