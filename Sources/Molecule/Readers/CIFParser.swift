/// Tokenizer and parser for text CIF (CIF 1.1 syntax, as used by PDBx/mmCIF): data blocks, single
/// items, loops, quoted strings, `;` text fields, comments, and `.`/`?` markers. Values are not
/// copied: columns keep token offsets into the file's bytes.
enum CIFParser {
    static func parse(_ bytes: [UInt8], fileName: String) throws -> [CIFBlock] {
        let source = CIFSource(bytes: bytes)
        var starts: [Int32] = [], lengths: [Int32] = []
        // Roughly one token per 6 bytes in atom_site-heavy files.
        starts.reserveCapacity(bytes.count / 6)
        lengths.reserveCapacity(bytes.count / 6)
        let blocks = try bytes.withUnsafeBufferPointer { b in
            var parser = CIFBlockParser(lexer: CIFLexer(b: b, fileName: fileName))
            return try parser.parse(starts: &starts, lengths: &lengths)
        }
        let tokens = CIFTokenArray(starts: starts, lengths: lengths)
        return try blocks.map { block in
            var out = CIFBlock(name: block.name)
            for pc in block.pending {
                var cat = out.categories[pc.name] ?? CIFCategory(name: pc.name, rowCount: pc.rowCount)
                // A category given in several parts must keep one row count, or its columns would not line up.
                guard cat.rowCount == pc.rowCount else {
                    let line = bytes.withUnsafeBufferPointer { lineNumber($0, at: pc.offset) }
                    throw StructureReadError(file: fileName, line: line, field: "_\(pc.name)",
                                             message: "category appears again with \(pc.rowCount) rows instead of \(cat.rowCount)")
                }
                for f in pc.fields where cat.columns[f.name] == nil {
                    cat.columns[f.name] = CIFColumn(.text(CIFTextColumn(source: source, tokens: tokens, firstToken: f.firstToken,
                                                                       stride: pc.stride, count: pc.rowCount)))
                }
                out.categories[pc.name] = cat
            }
            return out
        }
    }

    /// 1-based line number of a byte offset (computed only for error messages).
    static func lineNumber(_ b: UnsafeBufferPointer<UInt8>, at offset: Int) -> Int {
        var line = 1
        for i in 0..<min(offset, b.count) where b[i] == 0x0A { line += 1 }
        return line
    }
}

private struct PendingCategory {
    var name: String
    /// Where its first tag (or `loop_`) starts, for error messages.
    var offset: Int
    var fields: [(name: String, firstToken: Int)]
    var stride: Int
    var rowCount: Int
}

private struct CIFToken {
    enum Kind { case value, tag, loop, data, save, global, stop, end }
    var kind: Kind
    var start: Int
    var end: Int
    /// -1 for an unquoted `.`, -2 for `?`, else 0.
    var marker: Int32
}

/// Splits CIF text into tokens; a plain struct over a buffer so the hot loop makes no allocations.
private struct CIFLexer {
    let b: UnsafeBufferPointer<UInt8>
    let fileName: String
    var i = 0
    var atLineStart = true

    init(b: UnsafeBufferPointer<UInt8>, fileName: String) { self.b = b; self.fileName = fileName }

    func error(_ message: String, at offset: Int, field: String? = nil) -> StructureReadError {
        StructureReadError(file: fileName, line: CIFParser.lineNumber(b, at: offset), field: field, message: message)
    }

    @inline(__always)
    static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D }

    mutating func next() throws -> CIFToken {
        let n = b.count
        while i < n {
            let c = b[i]
            if c == 0x0A { i += 1; atLineStart = true; continue }
            if c == 0x20 || c == 0x09 || c == 0x0D { i += 1; atLineStart = false; continue }
            if c == 0x23 { while i < n, b[i] != 0x0A { i += 1 }; continue }  // comment
            let tokenStart = i
            if c == 0x3B && atLineStart { return try textField(tokenStart) }
            atLineStart = false
            if c == 0x27 || c == 0x22 {
                // Quoted string: closes at a matching quote followed by white space or the end.
                var j = i + 1
                while true {
                    guard j < n, b[j] != 0x0A else { throw error("quoted string is not closed on its line", at: tokenStart) }
                    if b[j] == c, j + 1 >= n || CIFLexer.isSpace(b[j + 1]) { break }
                    j += 1
                }
                i = j + 1
                return CIFToken(kind: .value, start: tokenStart + 1, end: j, marker: 0)
            }
            var j = i + 1
            while j < n, !CIFLexer.isSpace(b[j]) { j += 1 }
            i = j
            let len = j - tokenStart
            if c == 0x5F { return CIFToken(kind: .tag, start: tokenStart, end: j, marker: 0) }
            if len == 1 {
                if c == 0x2E { return CIFToken(kind: .value, start: tokenStart, end: j, marker: -1) }
                if c == 0x3F { return CIFToken(kind: .value, start: tokenStart, end: j, marker: -2) }
            }
            if len >= 5, let kind = reservedWord(tokenStart, len) {
                return CIFToken(kind: kind, start: kind == .data ? tokenStart + 5 : tokenStart, end: j, marker: 0)
            }
            return CIFToken(kind: .value, start: tokenStart, end: j, marker: 0)
        }
        return CIFToken(kind: .end, start: n, end: n, marker: 0)
    }

    /// `;` text field: runs to the next line that begins with `;`.
    private mutating func textField(_ tokenStart: Int) throws -> CIFToken {
        let n = b.count
        var j = tokenStart + 1
        let contentStart = j
        while true {
            while j < n, b[j] != 0x0A { j += 1 }
            if j >= n { throw error("text field starting here is never closed by a line beginning with ';'", at: tokenStart) }
            if j + 1 < n, b[j + 1] == 0x3B {
                var contentEnd = j
                if contentEnd > contentStart, b[contentEnd - 1] == 0x0D { contentEnd -= 1 }
                i = j + 2
                atLineStart = false
                return CIFToken(kind: .value, start: contentStart, end: contentEnd, marker: 0)
            }
            j += 1
        }
    }

    /// data_, loop_, save_, global_, stop_ (case-insensitive).
    private func reservedWord(_ s: Int, _ len: Int) -> CIFToken.Kind? {
        let w0 = b[s] | 0x20, w1 = b[s + 1] | 0x20, w2 = b[s + 2] | 0x20, w3 = b[s + 3] | 0x20, w4 = b[s + 4]
        if w0 == 0x64, w1 == 0x61, w2 == 0x74, w3 == 0x61, w4 == 0x5F { return .data }
        if len == 5, w0 == 0x6C, w1 == 0x6F, w2 == 0x6F, w3 == 0x70, w4 == 0x5F { return .loop }
        if w0 == 0x73, w1 == 0x61, w2 == 0x76, w3 == 0x65, w4 == 0x5F { return .save }
        if len == 5, w0 == 0x73, w1 == 0x74, w2 == 0x6F, w3 == 0x70, w4 == 0x5F { return .stop }
        if len == 7, w0 == 0x67, w1 == 0x6C, w2 == 0x6F, w3 == 0x62, w4 | 0x20 == 0x61, b[s + 5] | 0x20 == 0x6C, b[s + 6] == 0x5F { return .global }
        return nil
    }

    /// Whether a tag token holds a dot (mmCIF's "_category.field").
    func hasDot(_ t: CIFToken) -> Bool {
        for k in (t.start + 1)..<t.end where b[k] == 0x2E { return true }
        return false
    }

    /// "_atom_site.Cartn_x" → ("atom_site", "cartn_x"); a tag without a dot is its own category.
    func splitTag(_ t: CIFToken) -> (String, String) {
        var dot = -1
        for k in (t.start + 1)..<t.end where b[k] == 0x2E { dot = k; break }
        func lower(_ x: Int, _ y: Int) -> String {
            String(decoding: UnsafeBufferPointer(rebasing: b[x..<y]).map { ($0 >= 0x41 && $0 <= 0x5A) ? $0 | 0x20 : $0 }, as: UTF8.self)
        }
        if dot < 0 { return (lower(t.start + 1, t.end), "") }
        return (lower(t.start + 1, dot), lower(dot + 1, t.end))
    }
}

private struct CIFBlockParser {
    var lexer: CIFLexer

    /// The category and field names of a loop of CIF1 tags (no dot): the category is their common
    /// beginning up to an underscore ("atom_site" for `_atom_site_label`, `_atom_site_fract_x`), the
    /// fields the rest. One tag alone splits at its last underscore. Where that category is taken
    /// with another row count (`isFree` says no), a shorter beginning is tried; with none left, nil
    /// (the caller then treats the tags as before CIF1 names were read: each its own category).
    /// `CIFBlock.column(tag:)` finds them by tag.
    static func undottedCategory(_ tags: [String], isFree: (String) -> Bool) -> (String, [String])? {
        let bytes = tags.map { Array($0.utf8) }
        var common = bytes[0].count
        for t in bytes.dropFirst() {
            var k = 0
            while k < min(common, t.count), t[k] == bytes[0][k] { k += 1 }
            common = k
        }
        // Every underscore inside the common part that leaves each tag a non-empty rest.
        var cuts: [Int] = []
        for k in 1..<max(1, common) where bytes[0][k] == 0x5F && bytes.allSatisfy({ $0.count > k + 1 }) { cuts.append(k) }
        for k in cuts.reversed() {
            let name = String(decoding: bytes[0][..<k], as: UTF8.self)
            if isFree(name) { return (name, bytes.map { String(decoding: $0[(k + 1)...], as: UTF8.self) }) }
        }
        return nil
    }

    mutating func parse(starts: inout [Int32], lengths: inout [Int32]) throws -> [(name: String, pending: [PendingCategory])] {
        var blocks: [(name: String, pending: [PendingCategory])] = []
        var pending: [PendingCategory] = []
        var blockName: String? = nil
        var singleCategory: Int? = nil  // index in `pending` of the category collecting single items
        let b = lexer.b

        @inline(__always) func append(_ t: CIFToken) {
            starts.append(Int32(truncatingIfNeeded: t.start))
            lengths.append(t.marker < 0 ? t.marker : Int32(truncatingIfNeeded: t.end - t.start))
        }

        var token = try lexer.next()
        while true {
            switch token.kind {
            case .end:
                if let blockName { blocks.append((blockName, pending)) }
                return blocks
            case .data:
                if let blockName { blocks.append((blockName, pending)) }
                blockName = String(decoding: UnsafeBufferPointer(rebasing: b[token.start..<token.end]), as: UTF8.self)
                pending = []; singleCategory = nil
                token = try lexer.next()
            case .save, .global, .stop:
                // Save frames belong to dictionaries, not structure files: their markers are skipped.
                token = try lexer.next()
            case .value:
                let text = String(decoding: UnsafeBufferPointer(rebasing: b[token.start..<min(token.end, token.start + 40)]), as: UTF8.self)
                throw lexer.error("value without a tag: '\(text)'", at: token.start)
            case .tag:
                guard blockName != nil else { throw lexer.error("tag before any data_ block header", at: token.start) }
                let (cat, field) = lexer.splitTag(token)
                let value = try lexer.next()
                guard value.kind == .value else { throw lexer.error("tag has no value", at: token.start, field: "_\(cat).\(field)") }
                append(value)
                if let sc = singleCategory, pending[sc].name == cat {
                    pending[sc].fields.append((field, starts.count - 1))
                } else {
                    pending.append(PendingCategory(name: cat, offset: token.start, fields: [(field, starts.count - 1)], stride: 1, rowCount: 1))
                    singleCategory = pending.count - 1
                }
                token = try lexer.next()
            case .loop:
                guard blockName != nil else { throw lexer.error("loop_ before any data_ block header", at: token.start) }
                singleCategory = nil
                let loopStart = token.start
                var names: [String] = []
                var category = ""
                // CIF1 (core dictionary) names have no dot: "_atom_site_fract_x". Their loop's
                // category is found once all its tags are read.
                var undotted: [String] = []
                token = try lexer.next()
                while token.kind == .tag {
                    let (cat, field) = lexer.splitTag(token)
                    if field.isEmpty && !lexer.hasDot(token) {
                        guard names.isEmpty else { throw lexer.error("loop mixes categories _\(category) and _\(cat)", at: token.start) }
                        undotted.append(cat)
                    } else {
                        if let first = undotted.first { throw lexer.error("loop mixes categories _\(first) and _\(cat)", at: token.start) }
                        if names.isEmpty { category = cat } else if cat != category {
                            throw lexer.error("loop mixes categories _\(category) and _\(cat)", at: token.start)
                        }
                        names.append(field)
                    }
                    token = try lexer.next()
                }
                guard !names.isEmpty || !undotted.isEmpty else { throw lexer.error("loop_ without tags", at: loopStart) }
                let first = starts.count
                while token.kind == .value {
                    append(token)
                    token = try lexer.next()
                }
                let count = starts.count - first
                let tagCount = max(names.count, undotted.count)
                if !undotted.isEmpty {
                    let rows = count % tagCount == 0 ? count / tagCount : -1
                    if let split = CIFBlockParser.undottedCategory(undotted, isFree: { name in
                        !pending.contains { $0.name == name && $0.rowCount != rows }
                    }) {
                        (category, names) = split
                    } else if undotted.count == 1 {
                        (category, names) = (undotted[0], [""])
                    } else {
                        throw lexer.error("loop mixes categories _\(undotted[0]) and _\(undotted[1])", at: loopStart)
                    }
                }
                guard count % names.count == 0 else {
                    throw lexer.error("loop of _\(category) has \(count) values, not a multiple of its \(names.count) tags (truncated or misaligned row)",
                                      at: token.start < b.count ? token.start : max(0, b.count - 1), field: "_\(category)")
                }
                pending.append(PendingCategory(name: category, offset: loopStart, fields: names.enumerated().map { ($1, first + $0) },
                                               stride: names.count, rowCount: count / names.count))
            }
        }
    }
}
