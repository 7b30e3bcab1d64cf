/// The vector arithmetic every module shares, for `SIMD3<Float>` and `SIMD3<Double>` alike:
/// one definition instead of a private copy per file. Written out component by component (the
/// same operations in the same order as `(a * b).sum()`), so results are identical wherever
/// they are used, and `@inlinable` so that callers in other modules get them specialised and
/// inlined, as fast as a local copy.

@inlinable @inline(__always)
public func dot<T: SIMDScalar & FloatingPoint>(_ a: SIMD3<T>, _ b: SIMD3<T>) -> T { a.x * b.x + a.y * b.y + a.z * b.z }

@inlinable @inline(__always)
public func cross<T: SIMDScalar & FloatingPoint>(_ a: SIMD3<T>, _ b: SIMD3<T>) -> SIMD3<T> {
    SIMD3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
}

@inlinable @inline(__always)
public func lengthSquared<T: SIMDScalar & FloatingPoint>(_ a: SIMD3<T>) -> T { dot(a, a) }

@inlinable @inline(__always)
public func length<T: SIMDScalar & FloatingPoint>(_ a: SIMD3<T>) -> T { dot(a, a).squareRoot() }

@inlinable @inline(__always)
public func distance<T: SIMDScalar & FloatingPoint>(_ a: SIMD3<T>, _ b: SIMD3<T>) -> T { length(a - b) }

/// `a` scaled to length 1 (not finite for the zero vector: callers that may meet it check first).
@inlinable @inline(__always)
public func normalized<T: SIMDScalar & FloatingPoint>(_ a: SIMD3<T>) -> SIMD3<T> { a / length(a) }
