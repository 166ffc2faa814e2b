/// Something that cannot happen did: answered as a `500`, logged with the message.
package struct InvariantViolation: Error, CustomStringConvertible {
    package var description: String
    package init(_ description: String) { self.description = description }
}
