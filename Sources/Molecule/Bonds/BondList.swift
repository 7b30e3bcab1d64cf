/// Bonds of one model as parallel arrays of atom indices (a < b) and orders.
public struct BondList: Sendable, Equatable {
    public var a: [Int32] = []
    public var b: [Int32] = []
    public var orders: [BondOrder] = []
    public init() {}

    public var count: Int { a.count }

    mutating func append(_ i: Int, _ j: Int, _ order: BondOrder) {
        a.append(Int32(min(i, j))); b.append(Int32(max(i, j))); orders.append(order)
    }
}
