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

/// Sine and cosine by Taylor series, accurate to ~2e-15 after reducing the angle to [-π, π]. Kept
/// beside Foundation's on purpose: the C library's (measured: 34 ns a sine and cosine against these
/// 99 ns) differ by platform in the last bit, and 255 of the 65,786 ring values for 3 to 256 sides
/// would round to another Float, so the same model would have other bytes on Linux and on Apple
/// platforms (and another ETag). They are used only to make ring and profile templates, once.
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
