/// Input a validator refuses: every problem it found, in a stable order. How a refusal is
/// answered — over HTTP, on the command line — is the adapter's business.
package struct InvalidInput: Error, Sendable, Equatable {
    /// One or more human-readable problems, each naming the field or parameter it is about.
    package var messages: [String]

    package init(_ messages: [String]) {
        precondition(!messages.isEmpty, "invalid input needs at least one message")
        self.messages = messages
    }

    package init(_ message: String) {
        self.init([message])
    }
}
