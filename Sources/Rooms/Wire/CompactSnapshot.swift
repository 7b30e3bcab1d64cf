import Foundation

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
///      "notes": [...], "molecule": {...}, "presentation": {...}}
///
/// Written by hand, byte by byte: a room of 10,000 strokes has hundreds of thousands of numbers,
/// and ids, authors and colours need no escaping (the room accepts only letters, digits, '-', '_'
/// and '#'-colours); notes, the molecule and the presentation go through the encoder.
public enum CompactSnapshot {
    public static let format = "compact-1"
    /// The grid: points are whole numbers of this many per metre.
    static let unitsPerMetre = 10_000.0

    public static func text(_ state: RoomState) throws -> String {
        var authors: [String: Int] = [:], authorList: [String] = []
        var colors: [String: Int] = [:], colorList: [String] = []
        // Bytes, not a String: a room of 10,000 strokes has hundreds of thousands of numbers, and
        // writing each as a String of its own took most of a first joiner's wait.
        var out: [UInt8] = []
        out.reserveCapacity(64 + state.totalPoints * 12 + state.strokes.count * 48)
        out += "{\"format\":\"\(format)\",\"sequence\":\(state.sequence),\"strokes\":[".utf8
        // One stroke's points in grid units (x y z after each other), its steps and its changes of
        // step: kept across strokes, so a stroke costs no allocation.
        var units: [Int] = [], steps: [Int] = [], changes: [Int] = []
        for (n, stroke) in state.strokes.enumerated() {
            let a = authors[stroke.author] ?? { authorList.append(stroke.author); authors[stroke.author] = authorList.count - 1; return authorList.count - 1 }()
            let c = colors[stroke.color] ?? { colorList.append(stroke.color); colors[stroke.color] = colorList.count - 1; return colorList.count - 1 }()
            if n > 0 { out.append(UInt8(ascii: ",")) }
            out += "{\"id\":\"\(stroke.id)\",\"a\":\(a),\"c\":\(c),\"w\":\(stroke.width),".utf8
            if grid(stroke.points, into: &units) {
                // The steps from point to point (`q`), or the first step and then each change of
                // step (`r`), whichever is shorter (a pen moving smoothly changes its step by little).
                steps.removeAll(keepingCapacity: true); changes.removeAll(keepingCapacity: true)
                var stepDigits = 0, changeDigits = 0
                for j in units.indices {
                    let step = j < 3 ? units[j] : units[j] - units[j - 3]
                    let change = j < 6 ? step : step - steps[j - 3]
                    steps.append(step); changes.append(change)
                    stepDigits += digits(step); changeDigits += digits(change)
                }
                let useChanges = changeDigits < stepDigits
                out += (useChanges ? "\"r\":[" : "\"q\":[").utf8
                for (j, number) in (useChanges ? changes : steps).enumerated() {
                    if j > 0 { out.append(UInt8(ascii: ",")) }
                    append(number, to: &out)
                }
                out += "]}".utf8
            } else {
                out += "\"points\":".utf8
                out += try RoomWire.encoder.encode(stroke.points)
                out.append(UInt8(ascii: "}"))
            }
        }
        out += ("],\"authors\":[" + authorList.map { "\"\($0)\"" }.joined(separator: ",") + "]").utf8
        out += (",\"colors\":[" + colorList.map { "\"\($0)\"" }.joined(separator: ",") + "]").utf8
        out += ",\"notes\":".utf8
        out += try RoomWire.encoder.encode(state.notes)
        if let molecule = state.molecule {
            out += ",\"molecule\":".utf8
            out += try RoomWire.encoder.encode(molecule)
        }
        if let presentation = state.presentation {
            out += ",\"presentation\":".utf8
            out += try RoomWire.encoder.encode(presentation)
        }
        out.append(UInt8(ascii: "}"))
        return String(decoding: out, as: UTF8.self)
    }

    /// Characters a number takes as text.
    static func digits(_ n: Int) -> Int {
        var m = n.magnitude, count = n < 0 ? 2 : 1
        while m >= 10 { m /= 10; count += 1 }
        return count
    }

    /// A whole number as decimal text.
    static func append(_ n: Int, to out: inout [UInt8]) {
        if n < 0 { out.append(UInt8(ascii: "-")) }
        var m = n.magnitude
        let start = out.count
        repeat {
            out.append(UInt8(ascii: "0") + UInt8(m % 10))
            m /= 10
        } while m > 0
        out[start...].reverse()
    }

    /// The points in whole numbers of 0.1 mm (x, y, z after each other) into `units`; false when
    /// one of them is off that grid.
    static func grid(_ points: [RoomPoint], into units: inout [Int]) -> Bool {
        units.removeAll(keepingCapacity: true)
        for p in points {
            guard let x = Self.units(p.x), let y = Self.units(p.y), let z = Self.units(p.z) else { return false }
            units.append(x); units.append(y); units.append(z)
        }
        return true
    }

    private static func units(_ v: Double) -> Int? {
        let k = (v * unitsPerMetre).rounded()
        guard abs(k) < 1e12, Double(Int(k)) / unitsPerMetre == v else { return nil }
        return Int(k)
    }
}
