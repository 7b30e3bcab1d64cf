import Foundation
import NIOConcurrencyHelpers
import SketchRooms

/// A room's content as a late joiner that asks for it (`?snapshot=compact` on the live socket)
/// receives it: the same state as `RoomStateJSON`, smaller. Authors and colours are listed once and
/// named by their place in the list; a stroke whose points all lie on the 0.1 mm grid (the web
/// app rounds every point to it) carries them as whole numbers of 0.1 mm, the first point as it is
/// and each next one as the step from the one before (`q`), which for a pen's short steps is a few
/// digits each; or, when that is shorter, the first point, the first step, and then each step's
/// change from the step before (`r`: a smooth stroke's steps change little). A point off the grid
/// keeps its stroke in the plain form (`points`): decoding is exact either way (k / 10000 is the
/// same double here and in JavaScript).
///
///     {"format": "compact-1", "sequence": N, "authors": [...], "colors": [...],
///      "strokes": [{"id", "a": author index, "c": colour index, "w": width,
///                   "q": [x, y, z, dx, dy, dz, ...] or "r": [x, y, z, dx, dy, dz, ddx, ddy, ddz, ...]}],
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
                // Steps from point to point (`q`), or, when shorter, the first step and then the
                // change of step (`r`): a pen moving smoothly changes its step by little.
                var steps: [Int] = [], changes: [Int] = []
                steps.reserveCapacity(q.count * 3); changes.reserveCapacity(q.count * 3)
                for i in q.indices {
                    let step = i == 0 ? q[0] : (q[i].0 - q[i - 1].0, q[i].1 - q[i - 1].1, q[i].2 - q[i - 1].2)
                    steps += [step.0, step.1, step.2]
                    if i < 2 {
                        changes += [step.0, step.1, step.2]
                    } else {
                        changes += [step.0 - steps[3 * i - 3], step.1 - steps[3 * i - 2], step.2 - steps[3 * i - 1]]
                    }
                }
                let useChanges = digits(changes) < digits(steps)
                out += useChanges ? "\"r\":[" : "\"q\":["
                for (i, n) in (useChanges ? changes : steps).enumerated() {
                    if i > 0 { out += "," }
                    out += String(n)
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

    /// Characters the numbers take as text.
    static func digits(_ numbers: [Int]) -> Int {
        numbers.reduce(0) { total, n in
            var m = n.magnitude, count = n < 0 ? 2 : 1
            while m >= 10 { m /= 10; count += 1 }
            return total + count
        }
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
