import TextOutput

/// Small JSON values written by hand where a Codable type would only wrap one response.
enum JSONText {
    indirect enum Value {
        case string(String), int(Int), double(Double), bool(Bool), null
        case raw(String)
        case array([Value])
        case object([(String, Value)])
    }

    static func object(_ pairs: KeyValuePairs<String, Value>) -> String {
        render(.object(pairs.map { ($0.key, $0.value) }))
    }

    static func render(_ v: Value) -> String {
        switch v {
        case .string(let s): return quote(s)
        case .int(let i): return String(i)
        case .double(let d): return d.isFinite ? String(d) : "null"
        case .bool(let b): return b ? "true" : "false"
        case .null: return "null"
        case .raw(let r): return r
        case .array(let items): return "[" + items.map(render).joined(separator: ",") + "]"
        case .object(let pairs): return "{" + pairs.map { quote($0.0) + ":" + render($0.1) }.joined(separator: ",") + "}"
        }
    }

    static func quote(_ s: String) -> String { JSONString.quoted(s) }
}
