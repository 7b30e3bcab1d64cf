/// Cosines and sines of `sides` equally spaced angles around a circle.
public struct RingTemplate: Sendable {
    public var cosines: [Float]
    public var sines: [Float]
    public init(sides: Int) {
        cosines = []; sines = []
        for k in 0..<sides {
            let angle = 2 * Double.pi * Double(k) / Double(sides)
            cosines.append(Float(Trig.cos(angle))); sines.append(Float(Trig.sin(angle)))
        }
    }
    public var sides: Int { cosines.count }
}

/// Sine and cosine by Taylor series (the standard library has none), accurate to ~1e-15 after
/// reducing the angle to [-π, π].
public enum Trig {
    public static func sin(_ x: Double) -> Double {
        var a = x.truncatingRemainder(dividingBy: 2 * .pi)
        if a > .pi { a -= 2 * .pi } else if a < -.pi { a += 2 * .pi }
        var term = a, sum = a
        for n in 1...20 {
            term *= -a * a / Double((2 * n) * (2 * n + 1))
            sum += term
        }
        return sum
    }
    public static func cos(_ x: Double) -> Double { sin(x + .pi / 2) }
}
