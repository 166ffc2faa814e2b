/// Something that cannot happen did: answered as a `500`, logged with the message.
public struct InvariantViolation: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
