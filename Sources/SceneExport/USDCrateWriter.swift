/// Writes a `USDLayer` as a USD crate file (`.usdc`, version 0.8.0), the binary form AR Quick Look
/// and every USD reader open: about a third of the text's bytes for a large mesh, and no number
/// parsing on the phone.
///
/// Layout: the 88-byte bootstrap (`PXR-USDC`, version, table-of-contents offset), the value heap,
/// then the sections TOKENS, STRINGS, FIELDS, FIELDSETS, PATHS and SPECS, then the table of contents.
/// Values that fit in 48 bits are inlined in their field's value rep; arrays are out of line:
/// `float3` arrays raw and 8-aligned, `int` arrays of 16 or more elements integer-coded and
/// compressed (as OpenUSD writes them). Fields and field sets are shared between specs that have
/// the same ones. The byte-level reference is OpenUSD's `crateFile.cpp`.
struct USDCrateWriter {
    private enum SpecType: UInt32 { case attribute = 1, prim = 6, pseudoRoot = 7, relationship = 8 }

    /// Crate type numbers (`crateDataTypes.h`) used here.
    private enum TypeEnum: UInt64 {
        case bool = 1, int = 3, float = 8, double = 9, string = 10, token = 11
        case matrix4d = 15, vec3f = 24
        case tokenListOp = 32, pathListOp = 34, referenceListOp = 35, tokenVector = 41
        case specifier = 42, variability = 44
    }

    private static let isArrayBit: UInt64 = 1 << 63
    private static let isInlinedBit: UInt64 = 1 << 62
    private static let isCompressedBit: UInt64 = 1 << 61
    /// OpenUSD compresses int arrays of at least this many elements.
    private static let minCompressedArraySize = 16
    private static let bootstrapSize = 88

    private var heap: CrateBytes
    private var tokens: [String] = []
    private var tokenIndex: [String: UInt32] = [:]
    /// String index → token index.
    private var strings: [UInt32] = []
    private var stringIndex: [String: UInt32] = [:]

    private struct PathNode {
        var parent: Int
        var token: UInt32
        var isProperty: Bool
        var children: [Int] = []
    }
    /// Path table; 0 is the root `/`.
    private var paths: [PathNode] = []
    private var pathIndex: [USDPath: Int] = [:]

    private struct FieldKey: Hashable {
        var token: UInt32
        var rep: UInt64
    }
    private var fields: [FieldKey] = []
    private var fieldIndex: [FieldKey: UInt32] = [:]
    private var fieldSets: [UInt32] = []
    private var fieldSetIndex: [[UInt32]: UInt32] = [:]
    private var specs: [(path: UInt32, fieldSet: UInt32, type: SpecType)] = []

    /// The crate's bytes, after `leadingSpace` zero bytes (room for a zip header).
    static func write(_ layer: USDLayer, leadingSpace: Int = 0) throws(CrateError) -> [UInt8] {
        var writer = USDCrateWriter(leadingSpace: leadingSpace, capacity: estimate(layer))
        try writer.add(layer)
        return try writer.finish()
    }

    private init(leadingSpace: Int, capacity: Int) {
        heap = CrateBytes(leadingSpace: leadingSpace, capacity: capacity)
        heap.append([UInt8](repeating: 0, count: Self.bootstrapSize))
        _ = token(";-)")   // token 0, as OpenUSD writes it: property paths store negative indexes
        _ = token("")      // the root path's element
        paths.append(PathNode(parent: -1, token: 1, isProperty: false))
        pathIndex[USDPath(prim: [])] = 0
    }

    private static func estimate(_ layer: USDLayer) -> Int {
        func size(_ prim: USDPrim) -> Int {
            var n = 128
            for case .attribute(let a) in prim.properties {
                switch a.value {
                case .float3Array(let v, _): n += 12 * v.count + 16
                case .intArray(let v): n += 2 * v.count + 16
                default: n += 16
                }
            }
            return prim.children.reduce(n) { $0 + size($1) }
        }
        return layer.rootPrims.reduce(4096) { $0 + size($1) }
    }

    // MARK: Specs

    private mutating func add(_ layer: USDLayer) throws(CrateError) {
        var f: [(String, UInt64)] = [
            ("defaultPrim", tokenRep(layer.defaultPrim)),
            ("documentation", inlined(.string, UInt64(string(layer.documentation)))),
            ("metersPerUnit", doubleRep(layer.metersPerUnit)),
            ("upAxis", tokenRep(layer.upAxis)),
        ]
        if !layer.rootPrims.isEmpty { f.append(("primChildren", tokenVectorRep(layer.rootPrims.map(\.name)))) }
        addSpec(USDPath(prim: []), .pseudoRoot, f)
        for prim in layer.rootPrims { add(prim, parent: []) }
    }

    private mutating func add(_ prim: USDPrim, parent: [String]) {
        let path = parent + [prim.name]
        var f: [(String, UInt64)] = [("specifier", inlined(.specifier, UInt64(prim.specifier.rawValue)))]
        if let t = prim.typeName { f.append(("typeName", tokenRep(t))) }
        if let k = prim.kind { f.append(("kind", tokenRep(k))) }
        if prim.instanceable { f.append(("instanceable", inlined(.bool, 1))) }
        if !prim.apiSchemas.isEmpty { f.append(("apiSchemas", tokenListOpPrependRep(prim.apiSchemas))) }
        if !prim.references.isEmpty { f.append(("references", referenceListOpPrependRep(prim.references))) }
        if !prim.children.isEmpty { f.append(("primChildren", tokenVectorRep(prim.children.map(\.name)))) }
        if !prim.properties.isEmpty { f.append(("properties", tokenVectorRep(prim.properties.map(\.name)))) }
        addSpec(USDPath(prim: path), .prim, f)

        for property in prim.properties {
            let propertyPath = USDPath(prim: path, property: property.name)
            switch property {
            case .attribute(let a):
                var af: [(String, UInt64)] = [("typeName", tokenRep(a.typeName))]
                if a.uniform { af.append(("variability", inlined(.variability, 1))) }
                if let v = a.value { af.append(("default", valueRep(v))) }
                if let i = a.interpolation { af.append(("interpolation", tokenRep(i))) }
                if let c = a.connection { af.append(("connectionPaths", pathListOpExplicitRep(c))) }
                addSpec(propertyPath, .attribute, af)
            case .relationship(_, let target):
                // Relationships are uniform, as every USD writer stores them.
                addSpec(propertyPath, .relationship, [("variability", inlined(.variability, 1)),
                                                      ("targetPaths", pathListOpExplicitRep(target))])
            }
        }
        for child in prim.children { add(child, parent: path) }
    }

    private mutating func addSpec(_ p: USDPath, _ type: SpecType, _ f: [(String, UInt64)]) {
        var run: [UInt32] = []
        for (name, rep) in f {
            let key = FieldKey(token: token(name), rep: rep)
            if let i = fieldIndex[key] {
                run.append(i)
            } else {
                let i = UInt32(fields.count)
                fields.append(key)
                fieldIndex[key] = i
                run.append(i)
            }
        }
        let set: UInt32
        if let existing = fieldSetIndex[run] {
            set = existing
        } else {
            set = UInt32(fieldSets.count)
            fieldSets.append(contentsOf: run)
            fieldSets.append(UInt32.max)
            fieldSetIndex[run] = set
        }
        specs.append((path(p), set, type))
    }

    // MARK: Tables

    private mutating func token(_ s: String) -> UInt32 {
        if let i = tokenIndex[s] { return i }
        let i = UInt32(tokens.count)
        tokens.append(s)
        tokenIndex[s] = i
        return i
    }

    private mutating func string(_ s: String) -> UInt32 {
        if let i = stringIndex[s] { return i }
        let i = UInt32(strings.count)
        strings.append(token(s))
        stringIndex[s] = i
        return i
    }

    /// Path table index of `p`, adding it and its ancestors.
    private mutating func path(_ p: USDPath) -> UInt32 {
        if let i = pathIndex[p] { return UInt32(i) }
        let i: Int
        if let property = p.property {
            let owner = Int(path(USDPath(prim: p.prim)))
            i = addPath(parent: owner, token: token(property), isProperty: true)
        } else {
            let parent = Int(path(USDPath(prim: Array(p.prim.dropLast()))))
            i = addPath(parent: parent, token: token(p.prim[p.prim.count - 1]), isProperty: false)
        }
        pathIndex[p] = i
        return UInt32(i)
    }

    private mutating func addPath(parent: Int, token t: UInt32, isProperty: Bool) -> Int {
        paths.append(PathNode(parent: parent, token: t, isProperty: isProperty))
        paths[parent].children.append(paths.count - 1)
        return paths.count - 1
    }

    // MARK: Values

    private func inlined(_ t: TypeEnum, _ payload: UInt64) -> UInt64 {
        Self.isInlinedBit | t.rawValue << 48 | payload
    }

    private func outOfLine(_ t: TypeEnum, at offset: Int, array: Bool = false, compressed: Bool = false) -> UInt64 {
        (array ? Self.isArrayBit : 0) | (compressed ? Self.isCompressedBit : 0) | t.rawValue << 48
            | UInt64(offset) & 0xFFFF_FFFF_FFFF
    }

    private mutating func tokenRep(_ s: String) -> UInt64 { inlined(.token, UInt64(token(s))) }

    /// A double that a float holds exactly is inlined as the float's bits.
    private mutating func doubleRep(_ d: Double) -> UInt64 {
        let f = Float(d)
        if Double(f) == d { return inlined(.double, UInt64(f.bitPattern)) }
        let at = heap.offset
        heap.f64(d)
        return outOfLine(.double, at: at)
    }

    private mutating func tokenVectorRep(_ names: [String]) -> UInt64 {
        let ids = names.map { token($0) }
        let at = heap.offset
        heap.u64(UInt64(ids.count))
        for i in ids { heap.u32(i) }
        return outOfLine(.tokenVector, at: at)
    }

    /// List ops: a header byte (0x20 prepended items, 0x03 explicit items), then `u64 n` and the items.
    private mutating func tokenListOpPrependRep(_ items: [String]) -> UInt64 {
        let ids = items.map { token($0) }
        let at = heap.offset
        heap.u8(0x20)
        heap.u64(UInt64(ids.count))
        for i in ids { heap.u32(i) }
        return outOfLine(.tokenListOp, at: at)
    }

    private mutating func pathListOpExplicitRep(_ target: USDPath) -> UInt64 {
        let id = path(target)
        let at = heap.offset
        heap.u8(0x03)
        heap.u64(1)
        heap.u32(id)
        return outOfLine(.pathListOp, at: at)
    }

    /// Internal references: no asset path (the empty string), the prim path, layer offset 0 and
    /// scale 1, empty custom data.
    private mutating func referenceListOpPrependRep(_ targets: [USDPath]) -> UInt64 {
        let items = targets.map { path($0) }
        let noAsset = string("")
        let at = heap.offset
        heap.u8(0x20)
        heap.u64(UInt64(items.count))
        for item in items {
            heap.u32(noAsset)
            heap.u32(item)
            heap.f64(0)
            heap.f64(1)
            heap.u64(0)
        }
        return outOfLine(.referenceListOp, at: at)
    }

    private mutating func valueRep(_ v: USDValue) -> UInt64 {
        switch v {
        case .bool(let b):
            return inlined(.bool, b ? 1 : 0)
        case .float(let f):
            return inlined(.float, UInt64(f.bitPattern))
        case .token(let s):
            return tokenRep(s)
        case .float3(let v):
            let at = heap.offset
            heap.f32(v.x)
            heap.f32(v.y)
            heap.f32(v.z)
            return outOfLine(.vec3f, at: at)
        case .matrix4d(let m):
            let at = heap.offset
            for x in m { heap.f64(x) }
            return outOfLine(.matrix4d, at: at)
        case .float3Array(let values, _):
            guard !values.isEmpty else { return Self.isArrayBit | TypeEnum.vec3f.rawValue << 48 }
            heap.align(8)
            let at = heap.offset
            heap.u64(UInt64(values.count))
            for p in values {
                heap.f32(p.x)
                heap.f32(p.y)
                heap.f32(p.z)
            }
            return outOfLine(.vec3f, at: at, array: true)
        case .intArray(let values):
            guard !values.isEmpty else { return Self.isArrayBit | TypeEnum.int.rawValue << 48 }
            if values.count >= Self.minCompressedArraySize,
               let blob = try? FastCompression.compress(IntegerCoding.encode(values)) {
                let at = heap.offset   // compressed arrays are not aligned
                heap.u64(UInt64(values.count))
                heap.u64(UInt64(blob.count))
                heap.append(blob)
                return outOfLine(.int, at: at, array: true, compressed: true)
            }
            heap.align(8)
            let at = heap.offset
            heap.u64(UInt64(values.count))
            for x in values { heap.i32(x) }
            return outOfLine(.int, at: at, array: true)
        case .tokenArray(let names):
            guard !names.isEmpty else { return Self.isArrayBit | TypeEnum.token.rawValue << 48 }
            let ids = names.map { token($0) }
            heap.align(8)
            let at = heap.offset
            heap.u64(UInt64(ids.count))
            for i in ids { heap.u32(i) }
            return outOfLine(.token, at: at, array: true)
        }
    }

    // MARK: Sections

    private mutating func finish() throws(CrateError) -> [UInt8] {
        guard heap.offset < 1 << 47 else { throw .tooLarge("value heap of \(heap.offset) bytes") }
        var w = heap
        var toc: [(String, Int, Int)] = []

        var start = w.offset
        var text: [UInt8] = []
        for t in tokens {
            text.append(contentsOf: t.utf8.filter { $0 != 0 })
            text.append(0)
        }
        let blob = try FastCompression.compress(text)
        w.u64(UInt64(tokens.count))
        w.u64(UInt64(text.count))
        w.u64(UInt64(blob.count))
        w.append(blob)
        toc.append(("TOKENS", start, w.offset - start))

        start = w.offset
        w.u64(UInt64(strings.count))
        for s in strings { w.u32(s) }
        toc.append(("STRINGS", start, w.offset - start))

        start = w.offset
        w.u64(UInt64(fields.count))
        try IntegerCoding.writeCompressed(fields.map(\.token), to: &w)
        var reps = CrateBytes(capacity: 8 * fields.count)
        for f in fields { reps.u64(f.rep) }
        let repBlob = try FastCompression.compress(reps.bytes)
        w.u64(UInt64(repBlob.count))
        w.append(repBlob)
        toc.append(("FIELDS", start, w.offset - start))

        start = w.offset
        w.u64(UInt64(fieldSets.count))
        try IntegerCoding.writeCompressed(fieldSets, to: &w)
        toc.append(("FIELDSETS", start, w.offset - start))

        // PATHS: a pre-order walk from "/" with each entry's element token (negative for a
        // property) and its jump (to the next sibling, or -1 child only, -2 neither, 0 sibling only).
        start = w.offset
        var pathOrder: [UInt32] = [], elementTokens: [Int32] = [], jumps: [Int32] = []
        encodePaths(node: 0, hasSibling: false, &pathOrder, &elementTokens, &jumps)
        w.u64(UInt64(paths.count))
        w.u64(UInt64(pathOrder.count))
        try IntegerCoding.writeCompressed(pathOrder, to: &w)
        try IntegerCoding.writeCompressed(elementTokens, to: &w)
        try IntegerCoding.writeCompressed(jumps, to: &w)
        toc.append(("PATHS", start, w.offset - start))

        start = w.offset
        w.u64(UInt64(specs.count))
        try IntegerCoding.writeCompressed(specs.map(\.path), to: &w)
        try IntegerCoding.writeCompressed(specs.map(\.fieldSet), to: &w)
        try IntegerCoding.writeCompressed(specs.map(\.type.rawValue), to: &w)
        toc.append(("SPECS", start, w.offset - start))

        let tocOffset = w.offset
        w.u64(UInt64(toc.count))
        for (name, s, size) in toc {
            var n = Array(name.utf8)
            n.append(contentsOf: repeatElement(0, count: 16 - n.count))
            w.append(n)
            w.i64(Int64(s))
            w.i64(Int64(size))
        }

        for (k, b) in "PXR-USDC".utf8.enumerated() { w.bytes[w.base + k] = b }
        w.bytes[w.base + 9] = 8   // version 0.8.0
        w.patchU64(atOffset: 16, UInt64(tocOffset))
        return w.bytes
    }

    /// Appends `node`'s subtree to the PATHS lists; returns its number of entries.
    @discardableResult
    private func encodePaths(node: Int, hasSibling: Bool,
                             _ order: inout [UInt32], _ elements: inout [Int32], _ jumps: inout [Int32]) -> Int {
        let me = order.count
        let n = paths[node]
        order.append(UInt32(node))
        elements.append(n.isProperty ? -Int32(n.token) : Int32(n.token))
        jumps.append(0)
        var size = 1
        for (k, c) in n.children.enumerated() {
            size += encodePaths(node: c, hasSibling: k + 1 < n.children.count, &order, &elements, &jumps)
        }
        switch (!n.children.isEmpty, hasSibling) {
        case (true, true): jumps[me] = Int32(size)
        case (true, false): jumps[me] = -1
        case (false, true): jumps[me] = 0
        case (false, false): jumps[me] = -2
        }
        return size
    }
}
