import Foundation
import SketchRooms

/// A room's content as a late joiner that asks for it (`?snapshot=compact` on the live socket)
/// receives it: the same state as `RoomStateJSON`, smaller. Authors and colours are listed once and
/// named by their place in the list; a stroke whose points all lie on the 0.1 mm grid (the web
/// app rounds every point to it) carries them as whole numbers of 0.1 mm, the first point as it is
/// and each next one as the step from the one before (`q`), which for a pen's short steps is a few
/// digits each. A point off the grid keeps its stroke in the plain form (`points`): decoding is
/// exact either way (k / 10000 is the same double here and in JavaScript).
///
///     {"format": "compact-1", "sequence": N, "authors": [...], "colors": [...],
///      "strokes": [{"id", "a": author index, "c": colour index, "w": width, "q": [x, y, z, dx, dy, dz, ...]}],
///      "notes": [...], "molecule": {...}}
///
/// Written by hand into one string: a room of 10,000 strokes has hundreds of thousands of numbers,
/// and ids, authors and colours need no escaping (the room accepts only letters, digits, '-', '_'
/// and '#'-colours); notes and the molecule go through the encoder.
enum CompactSnapshot {
    static let format = "compact-1"
    /// The grid: points are whole numbers of this many per metre.
    static let unitsPerMetre = 10_000.0

    static func text(_ state: RoomState) throws -> String {
        var authors: [String: Int] = [:], authorList: [String] = []
        var colors: [String: Int] = [:], colorList: [String] = []
        var out = "{\"format\":\"\(format)\",\"sequence\":\(state.sequence),\"strokes\":["
        out.reserveCapacity(64 + state.totalPoints * 8 + state.strokes.count * 48)
        for (n, stroke) in state.strokes.enumerated() {
            let a = authors[stroke.author] ?? { authorList.append(stroke.author); authors[stroke.author] = authorList.count - 1; return authorList.count - 1 }()
            let c = colors[stroke.color] ?? { colorList.append(stroke.color); colors[stroke.color] = colorList.count - 1; return colorList.count - 1 }()
            if n > 0 { out += "," }
            out += "{\"id\":\"\(stroke.id)\",\"a\":\(a),\"c\":\(c),\"w\":\(stroke.width),"
            if let q = grid(stroke.points) {
                out += "\"q\":["
                var previous = (0, 0, 0)
                for (i, p) in q.enumerated() {
                    if i > 0 { out += "," }
                    out += "\(p.0 - previous.0),\(p.1 - previous.1),\(p.2 - previous.2)"
                    previous = p
                }
                out += "]}"
            } else {
                out += "\"points\":" + String(decoding: try RoomJSON.encoder.encode(stroke.points), as: UTF8.self) + "}"
            }
        }
        out += "],\"authors\":[" + authorList.map { "\"\($0)\"" }.joined(separator: ",") + "]"
        out += ",\"colors\":[" + colorList.map { "\"\($0)\"" }.joined(separator: ",") + "]"
        out += ",\"notes\":" + String(decoding: try RoomJSON.encoder.encode(state.notes), as: UTF8.self)
        if let molecule = state.molecule {
            out += ",\"molecule\":" + String(decoding: try RoomJSON.encoder.encode(molecule), as: UTF8.self)
        }
        return out + "}"
    }

    /// The points as whole numbers of 0.1 mm, or nil when one of them is off that grid.
    static func grid(_ points: [RoomPoint]) -> [(Int, Int, Int)]? {
        var out: [(Int, Int, Int)] = []
        out.reserveCapacity(points.count)
        for p in points {
            guard let x = units(p.x), let y = units(p.y), let z = units(p.z) else { return nil }
            out.append((x, y, z))
        }
        return out
    }

    private static func units(_ v: Double) -> Int? {
        let k = (v * unitsPerMetre).rounded()
        guard abs(k) < 1e12, Double(Int(k)) / unitsPerMetre == v else { return nil }
        return Int(k)
    }
}
