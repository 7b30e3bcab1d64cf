/// When two atoms are close enough to be covalently bonded: within the sum of their covalent radii
/// plus a tolerance (0.45 Å, as Jmol and RasMol use), and not implausibly close.
public enum CovalentRange {
    public static let tolerance: Float = 0.45
    public static let minimumDistance: Float = 0.4

    @inline(__always)
    public static func maximum(_ a: Element, _ b: Element) -> Float { a.covalentRadius + b.covalentRadius + tolerance }

    @inline(__always)
    public static func contains(distance d: Float, _ a: Element, _ b: Element) -> Bool {
        d >= minimumDistance && d <= maximum(a, b)
    }
}
