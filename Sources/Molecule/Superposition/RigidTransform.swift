import Foundation
import Geometry

/// A rotation followed by a translation, x ↦ R·x + t, in Å: what moves one structure onto another.
public struct RigidTransform: Sendable, Equatable {
    /// The rotation matrix's rows.
    public var rows: (SIMD3<Double>, SIMD3<Double>, SIMD3<Double>)
    public var translation: SIMD3<Double>

    public init(rows: (SIMD3<Double>, SIMD3<Double>, SIMD3<Double>), translation: SIMD3<Double>) {
        self.rows = rows; self.translation = translation
    }

    public static let identity = RigidTransform(rows: (SIMD3(1, 0, 0), SIMD3(0, 1, 0), SIMD3(0, 0, 1)), translation: .zero)

    /// The rotation as a 3 × 3 array of rows.
    public var rotation: [[Double]] { [rows.0, rows.1, rows.2].map { [$0.x, $0.y, $0.z] } }

    /// The 4 × 4 homogeneous matrix, rows: [R t; 0 0 0 1].
    public var matrix4x4: [[Double]] {
        [[rows.0.x, rows.0.y, rows.0.z, translation.x],
         [rows.1.x, rows.1.y, rows.1.z, translation.y],
         [rows.2.x, rows.2.y, rows.2.z, translation.z],
         [0, 0, 0, 1]]
    }

    @inlinable
    public func rotate(_ p: SIMD3<Double>) -> SIMD3<Double> { SIMD3(dot(rows.0, p), dot(rows.1, p), dot(rows.2, p)) }

    @inlinable
    public func apply(_ p: SIMD3<Double>) -> SIMD3<Double> { rotate(p) + translation }

    public func apply(_ p: SIMD3<Float>) -> SIMD3<Float> {
        let q = apply(SIMD3<Double>(Double(p.x), Double(p.y), Double(p.z)))
        return SIMD3(Float(q.x), Float(q.y), Float(q.z))
    }

    /// Rotation by a unit quaternion (w, x, y, z), then translation.
    public init(quaternion q: SIMD4<Double>, translation: SIMD3<Double>) {
        let (w, x, y, z) = (q.x, q.y, q.z, q.w)
        rows = (SIMD3(w * w + x * x - y * y - z * z, 2 * (x * y - w * z), 2 * (x * z + w * y)),
                SIMD3(2 * (x * y + w * z), w * w - x * x + y * y - z * z, 2 * (y * z - w * x)),
                SIMD3(2 * (x * z - w * y), 2 * (y * z + w * x), w * w - x * x - y * y + z * z))
        self.translation = translation
    }

    /// The rotation's angle in degrees (0 … 180).
    public var rotationAngleDegrees: Double {
        let trace = rows.0.x + rows.1.y + rows.2.z
        return acos(min(1, max(-1, (trace - 1) / 2))) * 180 / Double.pi
    }

    public static func == (a: Self, b: Self) -> Bool {
        a.rows.0 == b.rows.0 && a.rows.1 == b.rows.1 && a.rows.2 == b.rows.2 && a.translation == b.translation
    }
}

extension Structure {
    /// This structure with every atom of every model moved by `transform` (annotations, which name
    /// atoms rather than place them, are unchanged).
    public func transformed(by transform: RigidTransform) -> Structure {
        var out = self
        for m in out.models.indices {
            out.models[m].atoms.positions = out.models[m].atoms.positions.map(transform.apply)
        }
        return out
    }
}
