import TextOutput

/// Writes a `USDLayer` as USDA, USD's text format: the debugging form of the USDZ root layer
/// (`USDZWriter.Options.layerFormat = .text`). Bulk arrays stream straight into the buffer with the
/// decimals the layer's values were rounded to, so reading the text gives back the layer's floats.
struct USDATextWriter {
    private var out: TextBuffer

    /// `leadingSpace` zero bytes come before the text in the result (room for a zip header).
    static func write(_ layer: USDLayer, leadingSpace: Int = 0) -> [UInt8] {
        var writer = USDATextWriter(capacity: leadingSpace + estimate(layer))
        writer.out.repeated(0, leadingSpace)
        writer.write(layer)
        return writer.out.finish()
    }

    private init(capacity: Int) { out = TextBuffer(capacity: capacity) }

    private static func estimate(_ layer: USDLayer) -> Int {
        func size(_ prim: USDPrim) -> Int {
            var n = 256
            for case .attribute(let a) in prim.properties {
                switch a.value {
                case .float3Array(let v, _): n += 40 * v.count
                case .intArray(let v): n += 8 * v.count
                default: n += 64
                }
            }
            return prim.children.reduce(n) { $0 + size($1) }
        }
        return layer.rootPrims.reduce(1024) { $0 + size($1) }
    }

    private mutating func write(_ layer: USDLayer) {
        out.text("#usda 1.0\n(\n    defaultPrim = ")
        out.quoted(layer.defaultPrim)
        out.text("\n    doc = ")
        out.quoted(layer.documentation)
        out.text("\n    metersPerUnit = ")
        out.text(Self.number(layer.metersPerUnit))
        out.text("\n    upAxis = ")
        out.quoted(layer.upAxis)
        out.text("\n)\n")
        for prim in layer.rootPrims {
            out.newline()
            write(prim, level: 0)
        }
    }

    private mutating func write(_ prim: USDPrim, level: Int) {
        out.indent(level)
        switch prim.specifier {
        case .def: out.text("def ")
        case .over: out.text("over ")
        case .class: out.text("class ")
        }
        if let type = prim.typeName {
            out.text(type)
            out.byte(0x20)
        }
        out.quoted(prim.name)
        var metadata: [String] = []
        if let kind = prim.kind { metadata.append("kind = \"\(kind)\"") }
        if prim.instanceable { metadata.append("instanceable = true") }
        if !prim.apiSchemas.isEmpty {
            metadata.append("prepend apiSchemas = [" + prim.apiSchemas.map { "\"\($0)\"" }.joined(separator: ", ") + "]")
        }
        if !prim.references.isEmpty {
            metadata.append("prepend references = " + (prim.references.count == 1 ? Self.path(prim.references[0])
                : "[" + prim.references.map(Self.path).joined(separator: ", ") + "]"))
        }
        if metadata.isEmpty {
            out.newline()
        } else {
            out.text(" (\n")
            for line in metadata {
                out.indent(level + 1)
                out.text(line)
                out.newline()
            }
            out.line(level, ")")
        }
        out.line(level, "{")
        for property in prim.properties { write(property, level: level + 1) }
        for (i, child) in prim.children.enumerated() {
            if i > 0 || !prim.properties.isEmpty { out.newline() }
            write(child, level: level + 1)
        }
        out.line(level, "}")
    }

    private mutating func write(_ property: USDProperty, level: Int) {
        out.indent(level)
        switch property {
        case .relationship(let name, let target):
            out.text("rel ")
            out.text(name)
            out.text(" = ")
            out.text(Self.path(target))
            out.newline()
        case .attribute(let a):
            if a.uniform { out.text("uniform ") }
            out.text(a.typeName)
            out.byte(0x20)
            out.text(a.name)
            if let connection = a.connection {
                out.text(".connect = ")
                out.text(Self.path(connection))
            } else if let value = a.value {
                out.text(" = ")
                write(value)
            }
            if let interpolation = a.interpolation {
                out.text(" (\n")
                out.indent(level + 1)
                out.text("interpolation = ")
                out.quoted(interpolation)
                out.newline()
                out.indent(level)
                out.byte(0x29)
            }
            out.newline()
        }
    }

    private mutating func write(_ value: USDValue) {
        switch value {
        case .bool(let b):
            out.byte(b ? 0x31 : 0x30)
        case .float(let f):
            out.shortest(f)
        case .token(let t):
            out.quoted(t)
        case .float3(let v):
            out.tuple3(v)
        case .matrix4d(let m):
            // Each double in its shortest exact form, so the text reads back as the same doubles.
            out.text("( ")
            for r in 0..<4 {
                if r > 0 { out.text(", ") }
                out.text("(" + (0..<4).map { Self.number(m[4 * r + $0]) }.joined(separator: ", ") + ")")
            }
            out.text(" )")
        case .float3Array(let values, let decimals):
            out.byte(0x5B)
            out.tuples(values, TextBuffer.USDAFixed(decimals: decimals))
            out.byte(0x5D)
        case .intArray(let values):
            out.byte(0x5B)
            out.integers(values[...])
            out.byte(0x5D)
        case .tokenArray(let tokens):
            out.text("[" + tokens.map { "\"\($0)\"" }.joined(separator: ", ") + "]")
        }
    }

    /// `</a/b>` or `</a/b.property>`.
    private static func path(_ p: USDPath) -> String {
        "<" + p.prim.map { "/" + $0 }.joined() + (p.property.map { "." + $0 } ?? "") + ">"
    }

    /// A double in the shortest form that reads back exactly ("1" for 1.0).
    private static func number(_ d: Double) -> String {
        if d == d.rounded(), d.magnitude < 1e15 { return String(Int64(d)) }
        return d.description
    }
}
