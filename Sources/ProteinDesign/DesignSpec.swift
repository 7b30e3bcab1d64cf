import Foundation

/// One piece of a design: its kind and length in residues.
public struct Piece: Sendable, Equatable, Codable {
    public var kind: PieceKind
    public var length: Int
    public init(_ kind: PieceKind, length: Int? = nil) {
        self.kind = kind
        self.length = length ?? kind.defaultLength
    }
}

/// What the person asked for: pieces in order, an optional sequence for the whole chain, and the
/// seed that makes the flexible coils reproducible, and whether hydrogens are wanted.
public struct DesignSpec: Sendable, Equatable {
    public static let lengthRange = 1...500
    public static let maximumResidues = 2_000
    public static let aminoAcids = Set("ACDEFGHIKLMNPQRSTVWY")

    public var pieces: [Piece]
    /// One letter per residue, upper case; the pieces' default composition when not given.
    public var sequence: [Character]
    public var seed: UInt64
    /// Hydrogens in the built structure (placed after the verdict, which does not depend on them).
    public var hydrogens = false

    /// Checks everything a person can get wrong and says what, where.
    public init(pieces: [Piece], sequence: String? = nil, seed: UInt64 = 1) throws(DesignError) {
        guard !pieces.isEmpty else { throw DesignError("a design needs at least one piece; accepted: \(PieceKind.acceptedNames)") }
        for (i, piece) in pieces.enumerated() where !Self.lengthRange.contains(piece.length) {
            throw DesignError("piece \(i + 1) (\(piece.kind.displayName)) has length \(piece.length); lengths are 1 to 500 residues")
        }
        let total = pieces.reduce(0) { $0 + $1.length }
        guard total <= Self.maximumResidues else {
            throw DesignError("the pieces add up to \(total) residues; a design has at most \(Self.maximumResidues)")
        }
        if let sequence {
            // ASCII letters only: upper-casing "ß" would otherwise turn it into "SS".
            var letters: [Character] = []
            for c in sequence where !c.isWhitespace {
                let upper = c.isASCII ? Character(c.uppercased()) : c
                guard Self.aminoAcids.contains(upper) else {
                    throw DesignError("sequence letter '\(c)' at position \(letters.count + 1) is not an amino acid; use the one-letter codes ACDEFGHIKLMNPQRSTVWY")
                }
                letters.append(upper)
            }
            guard letters.count == total else {
                throw DesignError("the sequence has \(letters.count) residues but the pieces have \(total)")
            }
            self.sequence = letters
        } else {
            self.sequence = pieces.flatMap { piece in
                (0..<piece.length).map { piece.kind.defaultPattern[$0 % piece.kind.defaultPattern.count] }
            }
        }
        self.pieces = pieces
        self.seed = seed
    }

    /// Parses `helix:14,coil:4,helix:14` (a length may be left out: `helix,coil,helix`).
    public init(parsing text: String, sequence: String? = nil, seed: UInt64 = 1) throws(DesignError) {
        var pieces: [Piece] = []
        let items = text.split(separator: ",", omittingEmptySubsequences: false)
        for (i, item) in items.enumerated() {
            let parts = item.trimmingCharacters(in: .whitespaces).split(separator: ":", omittingEmptySubsequences: false)
            let name = parts.first.map(String.init) ?? ""
            guard let kind = PieceKind(name: name), parts.count <= 2 else {
                throw DesignError("piece \(i + 1) '\(item.prefix(40))' is not a piece; accepted: \(PieceKind.acceptedNames), each optionally with :length")
            }
            var length: Int?
            if parts.count == 2 {
                guard let n = Int(parts[1]) else {
                    throw DesignError("piece \(i + 1) (\(kind.displayName)) has length '\(parts[1].prefix(20))'; lengths are whole numbers from 1 to 500")
                }
                length = n
            }
            pieces.append(Piece(kind, length: length))
        }
        try self.init(pieces: pieces, sequence: sequence, seed: seed)
    }

    public var residueCount: Int { sequence.count }

    /// "Helix – Coil – Helix".
    public var name: String { pieces.map(\.kind.displayName).joined(separator: " – ") }

    /// The residues of each piece.
    public var pieceRanges: [Range<Int>] {
        var start = 0
        return pieces.map { piece in
            defer { start += piece.length }
            return start..<(start + piece.length)
        }
    }
}

/// A design the builder refuses to start: what was wrong, in words a person can act on.
public struct DesignError: Error, CustomStringConvertible, Equatable {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
