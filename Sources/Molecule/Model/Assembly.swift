/// A biological assembly: copies of chains placed by symmetry operators.
public struct Assembly: Sendable, Equatable {
    public var id: String
    public var details = ""
    public var oligomericCount: Int?
    public var generators: [AssemblyGenerator] = []
    public init(id: String) { self.id = id }
}

/// One `pdbx_struct_assembly_gen` row or one REMARK 350 "APPLY ... TO CHAINS" block.
public struct AssemblyGenerator: Sendable, Equatable {
    /// The operator expression as written, e.g. "(1-60)" or "(1-60)(61-88)".
    public var operatorExpression: String
    /// Every operator combination the expression denotes, each applied right to left.
    public var operatorSequences: [[String]]
    /// Chains the generator applies to: `label_asym_id`s in mmCIF, author chain ids in PDB files.
    public var chainIDs: [String]
    public var chainIDsAreAuthor: Bool

    public init(operatorExpression: String, operatorSequences: [[String]], chainIDs: [String], chainIDsAreAuthor: Bool) {
        self.operatorExpression = operatorExpression; self.operatorSequences = operatorSequences
        self.chainIDs = chainIDs; self.chainIDsAreAuthor = chainIDsAreAuthor
    }
}

/// A rigid transform x' = R·x + t (row-major 3×3 rotation), in Å.
public struct SymmetryOperator: Sendable, Equatable {
    public var id: String
    public var rotation: [Double]
    public var translation: SIMD3<Double>
    public init(id: String, rotation: [Double], translation: SIMD3<Double>) {
        self.id = id; self.rotation = rotation; self.translation = translation
    }

    public static func identity(id: String) -> SymmetryOperator {
        SymmetryOperator(id: id, rotation: [1, 0, 0, 0, 1, 0, 0, 0, 1], translation: .zero)
    }

    public var isIdentity: Bool {
        rotation == [1, 0, 0, 0, 1, 0, 0, 0, 1] && translation == .zero
    }

    /// self ∘ other: apply `other` first, then `self`.
    public func composed(after other: SymmetryOperator) -> SymmetryOperator {
        var r = [Double](repeating: 0, count: 9)
        for i in 0..<3 { for j in 0..<3 {
            var s = 0.0
            for k in 0..<3 { s += rotation[i * 3 + k] * other.rotation[k * 3 + j] }
            r[i * 3 + j] = s
        } }
        let t = apply(other.translation) 
        return SymmetryOperator(id: "\(id)x\(other.id)", rotation: r, translation: t)
    }

    public func apply(_ p: SIMD3<Double>) -> SIMD3<Double> {
        SIMD3(rotation[0] * p.x + rotation[1] * p.y + rotation[2] * p.z + translation.x,
              rotation[3] * p.x + rotation[4] * p.y + rotation[5] * p.z + translation.y,
              rotation[6] * p.x + rotation[7] * p.y + rotation[8] * p.z + translation.z)
    }
}
