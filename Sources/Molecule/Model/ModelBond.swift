/// A bond stated by a small-molecule file (SDF/MOL bond block) for one model: the two atoms are
/// 0-based indices into that model's `AtomTable`. Unlike `Structure.explicitBonds`, which apply to
/// every model, these belong to the model that holds them (each SDF record has its own bonds).
public struct ModelBond: Sendable, Equatable, Hashable {
    public var a: Int32
    public var b: Int32
    public var order: BondOrder

    public init(a: Int32, b: Int32, order: BondOrder = .single) {
        self.a = a; self.b = b; self.order = order
    }
}
