/// Parses a crystallographic symmetry operation written as coordinate triplets, the way CIF's
/// `_symmetry_equiv_pos_as_xyz` and `_space_group_symop_operation_xyz` give them: "x, y, z",
/// "-x+1/2, y+1/2, -z+1/2", "1/2+X,-Y,Z", "x-y, x, z+1/6", "-x, -y+0.5, z". The result acts on
/// fractional coordinates: rotation rows (row-major, 3 × 3) and a translation.
enum SymmetryOperationText {
    static func parse(_ text: String, id: String = "") -> SymmetryOperator? {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        var rotation = [Double](repeating: 0, count: 9)
        var translation = SIMD3<Double>()
        for (row, part) in parts.enumerated() {
            guard let (coefficients, constant) = parseComponent(Array(part.utf8)) else { return nil }
            for k in 0..<3 { rotation[3 * row + k] = coefficients[k] }
            translation[row] = constant
        }
        // Each row must use some coordinate, and the rotation must be invertible.
        let r = rotation
        let det = r[0] * (r[4] * r[8] - r[5] * r[7]) - r[1] * (r[3] * r[8] - r[5] * r[6]) + r[2] * (r[3] * r[7] - r[4] * r[6])
        guard abs(det) > 1e-6 else { return nil }
        return SymmetryOperator(id: id, rotation: rotation, translation: translation)
    }

    /// One component ("-x+1/2"): coefficients of x, y, z and the constant; nil when malformed.
    static func parseComponent(_ b: [UInt8]) -> (SIMD3<Double>, Double)? {
        var coefficients = SIMD3<Double>()
        var constant = 0.0
        var i = 0
        var terms = 0
        func skipSpaces() { while i < b.count, b[i] == 0x20 || b[i] == 0x09 || b[i] == 0x27 || b[i] == 0x22 { i += 1 } }
        skipSpaces()
        while i < b.count {
            var sign = 1.0
            if b[i] == 0x2B || b[i] == 0x2D {  // + -
                if b[i] == 0x2D { sign = -1 }
                i += 1
                skipSpaces()
            } else if terms > 0 {
                return nil  // two terms without a sign between them
            }
            // An optional number (decimal or fraction), then optionally "*" and an axis.
            var number: Double?
            let start = i
            while i < b.count, (b[i] >= 0x30 && b[i] <= 0x39) || b[i] == 0x2E { i += 1 }
            if i > start {
                guard let n = NumberParsing.double(String(decoding: b[start..<i], as: UTF8.self)) else { return nil }
                number = n
                if i < b.count, b[i] == 0x2F {  // "/"
                    i += 1
                    let ds = i
                    while i < b.count, b[i] >= 0x30 && b[i] <= 0x39 { i += 1 }
                    guard i > ds, let d = NumberParsing.double(String(decoding: b[ds..<i], as: UTF8.self)), d != 0 else { return nil }
                    number = n / d
                }
            }
            skipSpaces()
            if i < b.count, b[i] == 0x2A { i += 1; skipSpaces(); guard number != nil else { return nil } }  // "*"
            if i < b.count, let axis = axisIndex(b[i]) {
                i += 1
                coefficients[axis] += sign * (number ?? 1)
            } else {
                guard let number else { return nil }
                constant += sign * number
            }
            terms += 1
            skipSpaces()
        }
        guard terms > 0 else { return nil }
        return (coefficients, constant)
    }

    static func axisIndex(_ c: UInt8) -> Int? {
        switch c | 0x20 {
        case 0x78: return 0  // x
        case 0x79: return 1  // y
        case 0x7A: return 2  // z
        default: return nil
        }
    }

    /// Applies an operation to a fractional position.
    static func apply(_ op: SymmetryOperator, _ p: SIMD3<Double>) -> SIMD3<Double> {
        let r = op.rotation
        return SIMD3(r[0] * p.x + r[1] * p.y + r[2] * p.z, r[3] * p.x + r[4] * p.y + r[5] * p.z,
                     r[6] * p.x + r[7] * p.y + r[8] * p.z) + op.translation
    }
}
