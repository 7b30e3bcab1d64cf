/// Random ids and secrets in hex, from the system's cryptographically secure generator: room
/// ids, session tokens and account ids.
public enum RandomToken {
    public static func hex(bytes: Int = 8) -> String {
        var generator = SystemRandomNumberGenerator()
        return Hashing.hex((0..<bytes).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }
}
