/// Tokenizer and parser for text CIF (CIF 1.1 syntax, as used by PDBx/mmCIF): data blocks, single
/// items, loops, quoted strings, `;` text fields, comments, and `.`/`?` markers. Values are not
/// copied: columns keep token offsets into the file's bytes.
enum CIFParser {
    static func parse(_ bytes: [UInt8], fileName: String) throws -> [CIFBlock] {
        var p = Tokens(source: CIFSource(bytes: bytes), fileName: fileName)
        return try p.parseBlocks()
    }
}

private struct PendingCategory {
    var name: String
    var fields: [(name: String, firstToken: Int)]
    var stride: Int
    var rowCount: Int
}

private struct Tokens {
    let source: CIFSource
    let fileName: String
    var starts: [Int32] = []
    var lengths: [Int32] = []

    init(source: CIFSource, fileName: String) {
        self.source = source
        self.fileName = fileName
        // Roughly one token per 6 bytes in atom_site-heavy files.
        starts.reserveCapacity(source.bytes.count / 6)
        lengths.reserveCapacity(source.bytes.count / 6)
    }

    func lineNumber(at offset: Int) -> Int {
        var line = 1
        source.bytes.withUnsafeBufferPointer { b in
            for i in 0..<min(offset, b.count) where b[i] == 0x0A { line += 1 }
        }
        return line
    }

    func error(_ message: String, at offset: Int, field: String? = nil) -> StructureReadError {
        StructureReadError(file: fileName, line: lineNumber(at: offset), field: field, message: message)
    }

    enum Kind { case value, tag, loop, data, save, global, stop, end }

    mutating func parseBlocks() throws -> [CIFBlock] {
        var blocks: [(name: String, pending: [PendingCategory])] = []
        var pending: [PendingCategory] = []
        var blockName: String? = nil
        var singleCategory: Int? = nil  // index in pending of the category collecting single items

        try source.bytes.withUnsafeBufferPointer { b in
            var i = 0
            let n = b.count
            var atLineStart = true

            /// Reads the next token; returns its kind and, for tags and values, its byte range.
            func next() throws -> (Kind, Int, Int, Int32) {
                while i < n {
                    let c = b[i]
                    if c == 0x0A { i += 1; atLineStart = true; continue }
                    if c == 0x20 || c == 0x09 || c == 0x0D { i += 1; atLineStart = false; continue }
                    if c == 0x23 { while i < n, b[i] != 0x0A { i += 1 }; continue }  // comment
                    let tokenStart = i
                    if c == 0x3B && atLineStart {
                        // Text field: up to a line that starts with ';'.
                        var j = i + 1
                        let contentStart = j
                        while true {
                            while j < n, b[j] != 0x0A { j += 1 }
                            if j >= n { throw error("text field starting here is never closed by a line beginning with ';'", at: tokenStart) }
                            if j + 1 < n, b[j + 1] == 0x3B {
                                var contentEnd = j
                                if contentEnd > contentStart, b[contentEnd - 1] == 0x0D { contentEnd -= 1 }
                                i = j + 2
                                atLineStart = false
                                return (.value, contentStart, contentEnd, 0)
                            }
                            j += 1
                        }
                    }
                    atLineStart = false
                    if c == 0x27 || c == 0x22 {
                        // Quoted string: closes at a matching quote followed by white space or end.
                        var j = i + 1
                        while true {
                            guard j < n, b[j] != 0x0A else { throw error("quoted string is not closed on its line", at: tokenStart) }
                            if b[j] == c, j + 1 >= n || b[j + 1] == 0x20 || b[j + 1] == 0x09 || b[j + 1] == 0x0A || b[j + 1] == 0x0D { break }
                            j += 1
                        }
                        i = j + 1
                        return (.value, tokenStart + 1, j, 0)
                    }
                    var j = i
                    while j < n, b[j] != 0x20, b[j] != 0x09, b[j] != 0x0A, b[j] != 0x0D { j += 1 }
                    i = j
                    let len = j - tokenStart
                    if c == 0x5F { return (.tag, tokenStart, j, 0) }
                    if len == 1 && c == 0x2E { return (.value, tokenStart, j, -1) }
                    if len == 1 && c == 0x3F { return (.value, tokenStart, j, -2) }
                    if len >= 5 {
                        let w = (b[tokenStart] | 0x20, b[tokenStart + 1] | 0x20, b[tokenStart + 2] | 0x20, b[tokenStart + 3] | 0x20, b[tokenStart + 4])
                        if w.0 == 0x64, w.1 == 0x61, w.2 == 0x74, w.3 == 0x61, w.4 == 0x5F { return (.data, tokenStart + 5, j, 0) }  // data_
                        if len == 5, w.0 == 0x6C, w.1 == 0x6F, w.2 == 0x6F, w.3 == 0x70, w.4 == 0x5F { return (.loop, tokenStart, j, 0) }  // loop_
                        if w.0 == 0x73, w.1 == 0x61, w.2 == 0x76, w.3 == 0x65, w.4 == 0x5F { return (.save, tokenStart, j, 0) }  // save_
                        if len == 5, w.0 == 0x73, w.1 == 0x74, w.2 == 0x6F, w.3 == 0x70, w.4 == 0x5F { return (.stop, tokenStart, j, 0) }
                        if len == 7, w.0 == 0x67, w.1 == 0x6C, w.2 == 0x6F, w.3 == 0x62, w.4 == 0x61 { return (.global, tokenStart, j, 0) }
                    }
                    return (.value, tokenStart, j, 0)
                }
                return (.end, n, n, 0)
            }

            func splitTag(_ s: Int, _ e: Int) throws -> (String, String) {
                // "_atom_site.Cartn_x" → ("atom_site", "cartn_x"); tags without a dot form their own category.
                var dot = -1
                for k in (s + 1)..<e where b[k] == 0x2E { dot = k; break }
                let lower = { (x: Int, y: Int) -> String in
                    String(decoding: UnsafeBufferPointer(rebasing: b[x..<y]).map { ($0 >= 0x41 && $0 <= 0x5A) ? $0 | 0x20 : $0 }, as: UTF8.self)
                }
                if dot < 0 { return (lower(s + 1, e), "") }
                return (lower(s + 1, dot), lower(dot + 1, e))
            }

            func appendToken(_ s: Int, _ e: Int, _ marker: Int32) {
                starts.append(Int32(truncatingIfNeeded: s))
                lengths.append(marker < 0 ? marker : Int32(truncatingIfNeeded: e - s))
            }

            var token = try next()
            while true {
                let (kind, s, e, marker) = token
                switch kind {
                case .end:
                    if let blockName { blocks.append((blockName, pending)) }
                    return
                case .data:
                    if let blockName { blocks.append((blockName, pending)) }
                    blockName = String(decoding: UnsafeBufferPointer(rebasing: b[s..<e]), as: UTF8.self)
                    pending = []; singleCategory = nil
                    token = try next()
                case .save, .global, .stop:
                    // Save frames (dictionaries) are not used by structure files; skip their markers.
                    token = try next()
                case .value:
                    throw error("value without a tag: '\(String(decoding: UnsafeBufferPointer(rebasing: b[s..<min(e, s + 40)]), as: UTF8.self))'", at: s)
                case .tag:
                    guard blockName != nil else { throw error("tag before any data_ block header", at: s) }
                    let (cat, field) = try splitTag(s, e)
                    let v = try next()
                    guard v.0 == .value else { throw error("tag _\(cat).\(field) has no value", at: s, field: "_\(cat).\(field)") }
                    appendToken(v.1, v.2, v.3)
                    if let sc = singleCategory, pending[sc].name == cat {
                        pending[sc].fields.append((field, starts.count - 1))
                    } else {
                        pending.append(PendingCategory(name: cat, fields: [(field, starts.count - 1)], stride: 1, rowCount: 1))
                        singleCategory = pending.count - 1
                    }
                    token = try next()
                case .loop:
                    guard blockName != nil else { throw error("loop_ before any data_ block header", at: s) }
                    singleCategory = nil
                    var names: [String] = []
                    var category = ""
                    token = try next()
                    while token.0 == .tag {
                        let (cat, field) = try splitTag(token.1, token.2)
                        if names.isEmpty { category = cat } else if cat != category {
                            throw error("loop mixes categories _\(category) and _\(cat)", at: token.1)
                        }
                        names.append(field)
                        token = try next()
                    }
                    guard !names.isEmpty else { throw error("loop_ without tags", at: s) }
                    let first = starts.count
                    var count = 0
                    while token.0 == .value {
                        appendToken(token.1, token.2, token.3)
                        count += 1
                        token = try next()
                    }
                    guard count % names.count == 0 else {
                        throw error("loop of _\(category) has \(count) values, not a multiple of its \(names.count) tags (truncated or misaligned row)",
                                    at: token.1 < n ? token.1 : max(0, n - 1), field: "_\(category)")
                    }
                    pending.append(PendingCategory(name: category, fields: names.enumerated().map { ($1, first + $0) },
                                                   stride: names.count, rowCount: count / names.count))
                }
                _ = marker
            }
        }

        let tokens = CIFTokenArray(starts: starts, lengths: lengths)
        return blocks.map { block in
            var out = CIFBlock(name: block.name)
            for pc in block.pending {
                var cat = out.categories[pc.name] ?? CIFCategory(name: pc.name, rowCount: pc.rowCount)
                // A category split over several single-item groups keeps its first row count.
                for f in pc.fields where cat.columns[f.name] == nil {
                    cat.columns[f.name] = CIFColumn(.text(CIFTextColumn(source: source, tokens: tokens, firstToken: f.firstToken,
                                                                       stride: pc.stride, count: pc.rowCount)))
                }
                out.categories[pc.name] = cat
            }
            return out
        }
    }
}
