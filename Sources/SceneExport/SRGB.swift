/// Colour encodings: sRGB (as colour tables and hex codes give colours, and as MTL, PLY and COLLADA
/// files want them) and the linear RGB that scenes hold (glTF's and USD's colour factors are linear).
public enum SRGB {
    /// sRGB component (0…1) to linear.
    public static func linearComponent(_ c: Double) -> Double {
        if c <= 0.04045 { return c / 12.92 }
        let x = (c + 0.055) / 1.055
        // x^2.4 = x² · (x²)^(1/5), the fifth root by Newton's method (no `pow` in the standard library).
        let a = x * x
        var y = 1.0
        for _ in 0..<60 {
            let y4 = y * y * y * y
            let next = y - (y4 * y - a) / (5 * y4)
            if abs(next - y) < 1e-15 { y = next; break }
            y = next
        }
        return min(max(a * y, 0), 1)
    }

    public static func linear(srgb r: Double, _ g: Double, _ b: Double) -> SIMD4<Float> {
        SIMD4(Float(linearComponent(r)), Float(linearComponent(g)), Float(linearComponent(b)), 1)
    }

    public static func linear(hex: UInt32) -> SIMD4<Float> {
        linear(srgb: Double((hex >> 16) & 0xFF) / 255, Double((hex >> 8) & 0xFF) / 255, Double(hex & 0xFF) / 255)
    }

    // MARK: Linear to sRGB

    /// linear → sRGB-encoded at 4096 steps over 0...1, interpolated linearly between them (error < 1e-5
    /// past the toe, exact on the linear toe), built once without any math library.
    private static let table: [Float] = (0...4096).map { i in
        let x = Double(i) / 4096
        if x <= 0.0031308 { return Float(12.92 * x) }
        let r = root12(x)
        return Float(1.055 * r * r * r * r * r - 0.055)
    }

    /// x^(1/12) for x in (0, 1] by Newton's method from above (monotone, so it stops when it stalls).
    private static func root12(_ x: Double) -> Double {
        var y = 1.0
        for _ in 0..<200 {
            var y11 = y
            for _ in 0..<10 { y11 *= y }
            let next = y - (y11 * y - x) / (12 * y11)
            if !(next < y) { break }
            y = next
        }
        return y
    }

    /// Linear 0...1 (clamped) to sRGB-encoded 0...1 (the display space MTL, PLY and COLLADA colours use).
    static func encode(_ linear: Float) -> Float {
        let c = clamp01(linear) * 4096
        let i = min(Int(c), 4095)
        let f = c - Float(i)
        return table[i] + (table[i + 1] - table[i]) * f
    }

    static func encode(_ c: SIMD4<Float>) -> SIMD4<Float> { SIMD4(encode(c.x), encode(c.y), encode(c.z), clamp01(c.w)) }
}
