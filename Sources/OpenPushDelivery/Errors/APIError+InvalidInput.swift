package import OpenPushCore

extension APIError {
    /// Input Core's validators refuse is a `400` with their messages, in the family's shape.
    package init(_ invalid: InvalidInput) {
        self.init(status: 400, messages: invalid.messages)
    }

    /// The error a route answers with for `error`, when it is one that knows its answer: an
    /// `APIError` as it is, refused input as a `400`; nil for anything else.
    package static func answering(_ error: any Error) -> APIError? {
        if let apiError = error as? APIError { return apiError }
        if let invalid = error as? InvalidInput { return APIError(invalid) }
        return nil
    }
}
