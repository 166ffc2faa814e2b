/// A simulator setup failure (a listener, or the RFC 8291 self-check).
package struct WebPushSimulatorError: Error, Sendable, CustomStringConvertible {
    package var description: String

    init(_ description: String) {
        self.description = description
    }
}
