import Foundation
import TextOutput

extension RoomState {
    /// The state as the JSON its Codable form decodes (every stored property, the recent client
    /// ids included), written by hand: a host snapshots big rooms while people draw in them, and
    /// the encoder takes about a microsecond per number, this a fraction of that. Numbers are
    /// written in Swift's shortest form that reads back exactly. Throws when the notes or the
    /// placement cannot be encoded (never silently a snapshot without them).
    public func snapshotJSON() throws -> String {
        var out = "{\"sequence\":\(sequence),\"totalPoints\":\(totalPoints),\"strokes\":["
        out.reserveCapacity(totalPoints * 24 + strokes.count * 80 + recentOrder.count * 48 + 256)
        for (n, stroke) in strokes.enumerated() {
            if n > 0 { out += "," }
            out += "{\"id\":"; JSONString.append(stroke.id, to: &out)
            out += ",\"author\":"; JSONString.append(stroke.author, to: &out)
            out += ",\"color\":"; JSONString.append(stroke.color, to: &out)
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
            JSONString.append(key, to: &out)
        }
        // In `recentOrder`'s order, not the dictionary's (which differs from process to process):
        // the same state is the same text.
        out += "],\"recent\":{"
        for (i, key) in recentOrder.enumerated() {
            if i > 0 { out += "," }
            JSONString.append(key, to: &out)
            out += ":\(recent[key] ?? 0)"
        }
        out += "}"
        // Notes (at most a thousand, free text), the placement and the presentation go through the wire's encoder
        // (sorted keys: the same state is the same text in every process).
        let encoder = RoomWire.encoder
        out += ",\"notes\":" + String(decoding: try encoder.encode(notes), as: UTF8.self)
        if let molecule { out += ",\"molecule\":" + String(decoding: try encoder.encode(molecule), as: UTF8.self) }
        if let presentation { out += ",\"presentation\":" + String(decoding: try encoder.encode(presentation), as: UTF8.self) }
        return out + "}"
    }
}
