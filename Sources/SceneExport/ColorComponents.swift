// Colour components as the scene writers store them.

/// `x` within 0...1; NaN as 0.
@inline(__always) func clamp01(_ x: Float) -> Float { x.isNaN ? 0 : min(max(x, 0), 1) }

/// 0...1 to 0...255, rounded to nearest (adding ½ and truncating: no libm call).
@inline(__always) func unorm8(_ x: Float) -> UInt8 { UInt8(clamp01(x) * 255 + 0.5) }
