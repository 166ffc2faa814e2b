/// Why FCM refused a send: an `errorCode` of the answer's `google.firebase.fcm.v1.FcmError`
/// detail, or else the answer's `error.status` (a Google API status such as `NOT_FOUND`).
/// An open list: Google adds codes, and an unknown one must still travel as a value (it is the
/// reason a delivery row records).
package struct FCMErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    package var rawValue: String

    package init(rawValue: String) { self.rawValue = rawValue }
    package init(_ rawValue: String) { self.rawValue = rawValue }

    package var description: String { rawValue }

    // FcmError codes (FCM HTTP v1 reference, "ErrorCode").
    package static let unspecifiedError = FCMErrorCode("UNSPECIFIED_ERROR")
    package static let invalidArgument = FCMErrorCode("INVALID_ARGUMENT")
    package static let unregistered = FCMErrorCode("UNREGISTERED")
    package static let senderIDMismatch = FCMErrorCode("SENDER_ID_MISMATCH")
    package static let quotaExceeded = FCMErrorCode("QUOTA_EXCEEDED")
    package static let unavailable = FCMErrorCode("UNAVAILABLE")
    package static let internalError = FCMErrorCode("INTERNAL")
    package static let thirdPartyAuthError = FCMErrorCode("THIRD_PARTY_AUTH_ERROR")
    // Google API statuses FCM answers without an FcmError detail.
    package static let unauthenticated = FCMErrorCode("UNAUTHENTICATED")
    package static let permissionDenied = FCMErrorCode("PERMISSION_DENIED")
    package static let notFound = FCMErrorCode("NOT_FOUND")
    package static let resourceExhausted = FCMErrorCode("RESOURCE_EXHAUSTED")

    /// A code for an answer that named none: Google's usual status for the HTTP status, else
    /// the status itself (`HTTP 418`), so the delivery row always says something. A bare `404`
    /// is `NOT_FOUND`, never `UNREGISTERED`: a wrong project URL must not unsubscribe anyone.
    package static func fallback(status: Int) -> FCMErrorCode {
        switch status {
        case 400: .invalidArgument
        case 401: .unauthenticated
        case 403: .permissionDenied
        case 404: .notFound
        case 429: .quotaExceeded
        case 500: .internalError
        case 503: .unavailable
        default: FCMErrorCode("HTTP \(status)")
        }
    }
}
