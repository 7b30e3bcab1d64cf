import Foundation

extension RoomState {
    /// The state as the JSON its Codable form decodes (every stored property, the recent client
    /// ids included), written by hand: a host snapshots big rooms while people draw in them, and
    /// the encoder takes about a microsecond per number, this a fraction of that. Numbers are
    /// written in Swift's shortest form that reads back exactly.
    public func snapshotJSON() -> String {
        var out = "{\"sequence\":\(sequence),\"totalPoints\":\(totalPoints),\"strokes\":["
        out.reserveCapacity(totalPoints * 24 + strokes.count * 80 + recentOrder.count * 48 + 256)
        for (n, stroke) in strokes.enumerated() {
            if n > 0 { out += "," }
            out += "{\"id\":"; Self.appendString(stroke.id, to: &out)
            out += ",\"author\":"; Self.appendString(stroke.author, to: &out)
            out += ",\"color\":"; Self.appendString(stroke.color, to: &out)
            out += ",\"width\":\(stroke.width),\"points\":["
            for (i, p) in stroke.points.enumerated() {
                if i > 0 { out += "," }
                out += "[\(p.x),\(p.y),\(p.z)]"
            }
            out += "]}"
        }
        out += "],\"recentOrder\":["
        for (i, key) in recentOrder.enumerated() {
            if i > 0 { out += "," }
            Self.appendString(key, to: &out)
        }
        out += "],\"recent\":{"
        for (i, (key, value)) in recent.enumerated() {
            if i > 0 { out += "," }
            Self.appendString(key, to: &out)
            out += ":\(value)"
        }
        out += "}"
        // Notes (at most a thousand, free text) and the placement go through the encoder.
        let encoder = JSONEncoder()
        if let notes = try? encoder.encode(notes) { out += ",\"notes\":" + String(decoding: notes, as: UTF8.self) }
        if let molecule, let placement = try? encoder.encode(molecule) { out += ",\"molecule\":" + String(decoding: placement, as: UTF8.self) }
        return out + "}"
    }

    private static let hexDigits: [Character] = Array("0123456789abcdef")

    /// A JSON string: quotes, backslashes and control characters escaped.
    static func appendString(_ s: String, to out: inout String) {
        out += "\""
        if s.utf8.allSatisfy({ $0 >= 0x20 && $0 != 0x22 && $0 != 0x5C }) {
            out += s
        } else {
            // Runs of plain text copied whole, escapes between them (recent ids hold a NUL
            // between author and client id: the common case here).
            var run = s.utf8.startIndex
            for i in s.utf8.indices {
                let b = s.utf8[i]
                guard b < 0x20 || b == 0x22 || b == 0x5C else { continue }
                out += s[run..<i]
                switch b {
                case 0x22: out += "\\\""
                case 0x5C: out += "\\\\"
                default: out += "\\u00"; out.append(hexDigits[Int(b >> 4)]); out.append(hexDigits[Int(b & 15)])
                }
                run = s.utf8.index(after: i)
            }
            out += s[run...]
        }
        out += "\""
    }
}
