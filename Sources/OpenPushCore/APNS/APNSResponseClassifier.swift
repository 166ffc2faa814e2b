/// Turns an APNs answer (status and the `reason` of its JSON body) into a verdict: a device
/// push's and a channel broadcast's alike (`400 ChannelNotRegistered`, the channel gone, is a
/// dead token the way a `410` is).
/// The status decides where Apple is unambiguous (`200`, `410`, `429`, `5xx`, `403`), so a
/// reason Apple adds later still lands in the right place; the reason decides within `400`.
package enum APNSResponseClassifier {
    package static func classify(status: Int, reason rawReason: String?) -> DeliveryVerdict {
        if status == 200 { return .accepted }
        let reason = rawReason.flatMap { $0.isEmpty ? nil : APNSReason($0) } ?? fallbackReason(status: status)
        if reason.isExpiredProviderToken { return .refreshTokenAndRetry }
        if status == 410 || reason.isTokenDead { return .deadToken(reason) }
        if reason.isCredentialProblem || status == 403 { return .credentials(reason) }
        if status == 429 || (500...599).contains(status) || reason.isRetryable { return .retry(reason) }
        return .permanent(reason)
    }

    /// A reason for an answer that carried none: Apple's usual one for the status, else the
    /// status itself (`HTTP 418`), so the delivery row always says something.
    package static func fallbackReason(status: Int) -> APNSReason {
        switch status {
        case 403: .forbidden
        case 404: .badPath
        case 405: .methodNotAllowed
        case 410: .unregistered
        case 413: .payloadTooLarge
        case 429: .tooManyRequests
        case 500: .internalServerError
        case 503: .serviceUnavailable
        default: APNSReason("HTTP \(status)")
        }
    }
}
