/// Valid, unique USD prim names. USD identifiers are `[A-Za-z_][A-Za-z0-9_]*` (newer USD also
/// allows Unicode, older Apple runtimes do not, so only ASCII is used).
struct USDNameScope {
    private var taken: Set<String> = []

    init(reserved: [String] = []) { taken = Set(reserved) }

    /// `name` made valid (other characters become `_`, a leading digit gets a `_` prefix, empty
    /// becomes `fallback`), then made unique in this scope with a `_1`, `_2`… suffix.
    mutating func unique(_ name: String, fallback: String) -> String {
        let base = Self.identifier(name, fallback: fallback)
        var candidate = base
        var n = 1
        while taken.contains(candidate) {
            candidate = base + "_" + String(n)
            n += 1
        }
        taken.insert(candidate)
        return candidate
    }

    static func identifier(_ name: String, fallback: String) -> String {
        var scalars = String.UnicodeScalarView()
        for s in name.unicodeScalars {
            let v = s.value
            let ok = (v >= 0x30 && v <= 0x39) || (v >= 0x41 && v <= 0x5A) || (v >= 0x61 && v <= 0x7A) || v == 0x5F
            scalars.append(ok ? s : "_")
        }
        var result = String(scalars)
        if result.isEmpty { result = fallback }
        if let first = result.unicodeScalars.first, first.value >= 0x30 && first.value <= 0x39 {
            result = "_" + result
        }
        return result
    }
}
