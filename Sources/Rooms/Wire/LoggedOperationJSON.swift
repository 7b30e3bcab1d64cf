import Foundation

extension LoggedOperation {
    /// The JSON the log stores: what `encoder` (sorted keys) writes, to the byte. The operations a
    /// pen sends (add-stroke, extend-stroke: thousands a second in a class) are written by hand,
    /// as the encoder took a tenth of a busy server's time; the rest, and any text the encoder
    /// would escape, go through it. Points are finite: the room refuses others before logging.
    public func storedJSON(_ encoder: JSONEncoder) throws -> String {
        guard Self.plain(author), Self.plain(clientOpID) else { return String(decoding: try encoder.encode(self), as: UTF8.self) }
        switch operation {
        case let .addStroke(id, points, color, width) where Self.plain(id) && Self.plain(color):
            var out = head(capacity: points.count * 60 + 160)
            out += "{\"color\":\"\(color)\",\"id\":\"\(id)\",\"points\":"
            Self.append(points, to: &out)
            out += ",\"type\":\"add-stroke\",\"width\":"
            Self.append(width, to: &out)
            return out + "},\"sequence\":\(sequence)}"
        case let .extendStroke(id, points) where Self.plain(id):
            var out = head(capacity: points.count * 60 + 140)
            out += "{\"id\":\"\(id)\",\"points\":"
            Self.append(points, to: &out)
            return out + ",\"type\":\"extend-stroke\"},\"sequence\":\(sequence)}"
        default:
            return String(decoding: try encoder.encode(self), as: UTF8.self)
        }
    }

    private func head(capacity: Int) -> String {
        var out = ""
        out.reserveCapacity(capacity)
        return out + "{\"author\":\"\(author)\",\"clientOpID\":\"\(clientOpID)\",\"operation\":"
    }

    /// Text the encoder writes as it is: no control characters, quotes, backslashes or slashes.
    static func plain(_ s: String) -> Bool {
        s.utf8.allSatisfy { $0 >= 0x20 && $0 != 0x22 && $0 != 0x5C && $0 != 0x2F }
    }

    static func append(_ points: [RoomPoint], to out: inout String) {
        out += "["
        for (i, p) in points.enumerated() {
            out += i == 0 ? "[" : ",["
            append(p.x, to: &out); out += ","; append(p.y, to: &out); out += ","; append(p.z, to: &out)
            out += "]"
        }
        out += "]"
    }

    /// A number as the encoder writes it: Swift's shortest form that reads back exactly, without
    /// the ".0" of a whole number.
    static func append(_ v: Double, to out: inout String) {
        let text = v.description
        out += text.hasSuffix(".0") ? text.dropLast(2) : Substring(text)
    }
}
