/// Parses `pdbx_struct_assembly_gen.oper_expression`: "1", "1,2,5", "1-60", "(1-60)", and products
/// such as "(1-60)(61-88)" or "(X0)(1-5,11-15)". Each result is one operator sequence; the
/// rightmost operator is applied first, as in the PDBx dictionary.
public enum OperatorExpression {
    public static func parse(_ expression: String) throws -> [[String]] {
        let text = expression.filter { $0 != " " && $0 != "\n" && $0 != "'" && $0 != "\"" }
        guard !text.isEmpty else { throw ParseError(expression: expression, reason: "it is empty") }
        var groups: [[String]] = []
        if text.first == "(" {
            var rest = Substring(text)
            while !rest.isEmpty {
                guard rest.first == "(", let close = rest.firstIndex(of: ")") else {
                    throw ParseError(expression: expression, reason: "parentheses do not match")
                }
                groups.append(try list(rest[rest.index(after: rest.startIndex)..<close], expression))
                rest = rest[rest.index(after: close)...]
            }
        } else {
            guard !text.contains("("), !text.contains(")") else { throw ParseError(expression: expression, reason: "parentheses do not match") }
            groups.append(try list(Substring(text), expression))
        }
        var total = 1
        for g in groups {
            total = total.multipliedReportingOverflow(by: g.count).partialValue
            guard total <= 1_000_000 else { throw ParseError(expression: expression, reason: "it expands to more than a million operator combinations") }
        }
        var result: [[String]] = [[]]
        for g in groups {
            var next: [[String]] = []
            next.reserveCapacity(result.count * g.count)
            for prefix in result { for op in g { next.append(prefix + [op]) } }
            result = next
        }
        return result
    }

    static func list(_ s: Substring, _ expression: String) throws -> [String] {
        var out: [String] = []
        for item in s.split(separator: ",", omittingEmptySubsequences: false) {
            guard !item.isEmpty else { throw ParseError(expression: expression, reason: "an empty item between commas") }
            if let dash = item.firstIndex(of: "-"), dash != item.startIndex {
                let a = item[..<dash], b = item[item.index(after: dash)...]
                guard let lo = Int(a), let hi = Int(b), lo <= hi else {
                    throw ParseError(expression: expression, reason: "'\(item)' is not a range of numbers")
                }
                guard hi - lo < 1_000_000 else { throw ParseError(expression: expression, reason: "range '\(item)' is too long") }
                for k in lo...hi { out.append(String(k)) }
            } else {
                out.append(String(item))
            }
        }
        return out
    }

    public struct ParseError: Error, CustomStringConvertible {
        public var expression: String
        public var reason: String
        public var description: String { "operator expression '\(expression)' cannot be read: \(reason)" }
    }
}
