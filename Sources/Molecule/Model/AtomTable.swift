/// Atoms of one model as parallel arrays (structure of arrays): a million atoms cost tens of
/// megabytes, not a million objects. Index `i` in every array describes the same atom.
public struct AtomTable: Sendable, Equatable {
    /// Atom names such as "CA" or "O5'"; names of four bytes or fewer are stored inline by `String`.
    public var names: [String] = []
    public var elements: [Element] = []
    public var serials: [Int32] = []
    /// Alternate location indicator as an ASCII byte, 0 when the atom has none.
    public var altLocs: [UInt8] = []
    public var occupancies: [Float] = []
    public var bFactors: [Float] = []
    public var formalCharges: [Int8] = []
    public var isHetero: [Bool] = []
    /// Orthogonal coordinates in Å.
    public var positions: [SIMD3<Float>] = []

    public init() {}

    public var count: Int { positions.count }
    public var isEmpty: Bool { positions.isEmpty }

    public mutating func reserveCapacity(_ n: Int) {
        names.reserveCapacity(n); elements.reserveCapacity(n); serials.reserveCapacity(n)
        altLocs.reserveCapacity(n); occupancies.reserveCapacity(n); bFactors.reserveCapacity(n)
        formalCharges.reserveCapacity(n); isHetero.reserveCapacity(n); positions.reserveCapacity(n)
    }

    public mutating func append(_ atom: Atom) {
        names.append(atom.name); elements.append(atom.element); serials.append(atom.serial)
        altLocs.append(atom.altLoc); occupancies.append(atom.occupancy); bFactors.append(atom.bFactor)
        formalCharges.append(atom.formalCharge); isHetero.append(atom.isHetero); positions.append(atom.position)
    }

    /// Appends atoms `range` of another table (used when copying chains for assemblies).
    public mutating func append(contentsOf other: AtomTable, range: Range<Int>) {
        names.append(contentsOf: other.names[range]); elements.append(contentsOf: other.elements[range])
        serials.append(contentsOf: other.serials[range]); altLocs.append(contentsOf: other.altLocs[range])
        occupancies.append(contentsOf: other.occupancies[range]); bFactors.append(contentsOf: other.bFactors[range])
        formalCharges.append(contentsOf: other.formalCharges[range]); isHetero.append(contentsOf: other.isHetero[range])
        positions.append(contentsOf: other.positions[range])
    }

    public subscript(i: Int) -> Atom {
        Atom(name: names[i], element: elements[i], serial: serials[i], altLoc: altLocs[i],
             occupancy: occupancies[i], bFactor: bFactors[i], formalCharge: formalCharges[i],
             isHetero: isHetero[i], position: positions[i])
    }

    /// Bytes held by the arrays' elements (capacity, not just count), for memory reports.
    public var approximateByteCount: Int {
        names.capacity * MemoryLayout<String>.stride + elements.capacity + serials.capacity * 4 + altLocs.capacity
            + occupancies.capacity * 4 + bFactors.capacity * 4 + formalCharges.capacity + isHetero.capacity
            + positions.capacity * MemoryLayout<SIMD3<Float>>.stride
    }
}

/// One atom as a value, for building tables and for convenient reading; storage is `AtomTable`.
public struct Atom: Sendable, Equatable {
    public var name: String
    public var element: Element
    public var serial: Int32
    public var altLoc: UInt8
    public var occupancy: Float
    public var bFactor: Float
    public var formalCharge: Int8
    public var isHetero: Bool
    public var position: SIMD3<Float>

    public init(name: String, element: Element, serial: Int32 = 0, altLoc: UInt8 = 0, occupancy: Float = 1,
                bFactor: Float = 0, formalCharge: Int8 = 0, isHetero: Bool = false, position: SIMD3<Float>) {
        self.name = name; self.element = element; self.serial = serial; self.altLoc = altLoc
        self.occupancy = occupancy; self.bFactor = bFactor; self.formalCharge = formalCharge
        self.isHetero = isHetero; self.position = position
    }

    public var altLocString: String? { altLoc == 0 ? nil : String(UnicodeScalar(altLoc)) }
}
