/// An account operation refused, and why, in words for the sender; `kind` says which HTTP status
/// the server answers with.
public struct AccountError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable { case badRequest, unauthorized, forbidden, conflict, tooManyRequests }
    public var kind: Kind
    public var message: String
    /// Seconds after which trying again may work (`tooManyRequests`).
    public var retryAfter: Int?
    public init(_ kind: Kind, _ message: String, retryAfter: Int? = nil) {
        self.kind = kind; self.message = message; self.retryAfter = retryAfter
    }
    public var description: String { message }
}
