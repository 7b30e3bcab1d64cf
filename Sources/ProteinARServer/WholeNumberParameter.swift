import Hummingbird

/// A whole-number query parameter (`offset`, `limit`, `rows`, `start`): its value within `range`,
/// `fallback` when it is absent, or a 400 that names the parameter and what it accepts.
func wholeNumber(_ request: Request, _ name: String, in range: ClosedRange<Int>, default fallback: Int) throws -> Int {
    guard let text = request.uri.queryParameters.get(name) else { return fallback }
    guard let value = Int(text), range.contains(value) else {
        let accepted = range.upperBound == .max ? "a whole number ≥ \(range.lowerBound)" : "\(range.lowerBound) to \(range.upperBound)"
        throw APIError(.badRequest, "\(name) '\(text.prefix(20))': expected \(accepted)")
    }
    return value
}
