/// What the worker does with one FCM HTTP v1 send answer. A rejection is a value, never an
/// exception; a request that got no answer at all (transport failure) is the adapter's
/// `.retry` without calling `classify`.
package enum FCMAnswer: Sendable, Hashable {
    /// `200`: FCM took the push; `name` is FCM's message name
    /// (`projects/…/messages/…`), nil if the body carried none.
    case accepted(name: String?)
    /// The registration token will never work again (`UNREGISTERED`, `SENDER_ID_MISMATCH`, an
    /// `INVALID_ARGUMENT` about the token): unsubscribe the device, no retry.
    case tokenDead(FCMErrorCode)
    /// This push is refused as it is (any other `INVALID_ARGUMENT`, an unknown `4xx`): the row
    /// ends with this reason and FCM's message, and is never retried.
    case failed(FCMErrorCode, message: String?)
    /// `429 QUOTA_EXCEEDED`: send again after `Retry-After` seconds, or the usual backoff when
    /// FCM gave none (or gave an HTTP date).
    case retryAfter(seconds: Int?)
    /// `500 INTERNAL`, `503 UNAVAILABLE`, any `5xx`: send again after a backoff.
    case retry(FCMErrorCode)
    /// `401 UNAUTHENTICATED`, `THIRD_PARTY_AUTH_ERROR`, `403 PERMISSION_DENIED`: fetch a new
    /// access token and send once more; if it persists the app's FCM sending pauses.
    case reauthenticate(FCMErrorCode)

    /// FCM's words for a registration token it does not accept (the `error.message` of a
    /// `400 INVALID_ARGUMENT` with no field violation, e.g. for an empty or truncated token).
    package static let invalidTokenMessage = "not a valid FCM registration token"
    /// The field a violation names when the token is what is wrong.
    package static let tokenField = "message.token"

    /// Classifies an answer from its HTTP status, its `Retry-After` header and its body bytes
    /// (FCM's `{"error": {"code", "status", "message", "details": […]}}`, or anything else).
    /// The `FcmError` detail's `errorCode` decides first, then `error.status`, then the status.
    package static func classify<Body: Collection>(status: Int, retryAfter: String?, body: Body) -> FCMAnswer
    where Body.Element == UInt8 {
        let json = try? JSONValue.parse(body)
        if (200...299).contains(status) {
            return .accepted(name: json?.objectValue?["name"]?.stringValue)
        }
        let error = FCMErrorBody(json)
        let code = error.code ?? FCMErrorCode.fallback(status: status)
        switch code {
        case .unregistered, .senderIDMismatch:
            return .tokenDead(code)
        case .invalidArgument:
            return error.isAboutToken ? .tokenDead(code) : .failed(code, message: error.message)
        case .quotaExceeded, .resourceExhausted:
            return .retryAfter(seconds: retryAfterSeconds(retryAfter))
        case .unavailable, .internalError:
            return .retry(code)
        case .unauthenticated, .thirdPartyAuthError, .permissionDenied:
            return .reauthenticate(code)
        default:
            // A code this classifier does not know: the HTTP status says how bad it is.
            if status == 429 { return .retryAfter(seconds: retryAfterSeconds(retryAfter)) }
            if (500...599).contains(status) { return .retry(code) }
            if status == 401 { return .reauthenticate(code) }
            return .failed(code, message: error.message)
        }
    }

    package static func classify(status: Int, retryAfter: String?, body: String) -> FCMAnswer {
        classify(status: status, retryAfter: retryAfter, body: Array(body.utf8))
    }

    /// `Retry-After` as delta-seconds; an HTTP date or anything else is nil (use the backoff).
    package static func retryAfterSeconds(_ header: String?) -> Int? {
        guard let text = header.map(trimmed), !text.isEmpty, text.utf8.count <= 9,
              text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return nil }
        return Int(text)
    }

    private static func trimmed(_ text: String) -> String {
        String(text.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }

    /// The reason a delivery row records when the push was not accepted.
    package var reason: FCMErrorCode? {
        switch self {
        case .accepted: nil
        case .tokenDead(let code), .failed(let code, _), .retry(let code), .reauthenticate(let code): code
        case .retryAfter: .quotaExceeded
        }
    }
}

/// The parts of FCM's error body the classifier reads; every part optional, since a proxy or a
/// load balancer may answer with anything.
private struct FCMErrorBody {
    var code: FCMErrorCode?
    var message: String?
    var isAboutToken = false

    init(_ json: JSONValue?) {
        guard let error = json?.objectValue?["error"]?.objectValue else { return }
        message = error["message"]?.stringValue
        let details = error["details"]?.arrayValue?.compactMap(\.objectValue) ?? []
        let fcmCode = details.lazy.compactMap { detail -> String? in
            guard detail["@type"]?.stringValue?.hasSuffix("google.firebase.fcm.v1.FcmError") == true else { return nil }
            return detail["errorCode"]?.stringValue
        }.first
        let statusCode = error["status"]?.stringValue
        let named = [fcmCode, statusCode].first { $0 != nil && $0 != "" } ?? nil
        code = named.map { FCMErrorCode($0) }
        let violatesToken = details.contains { detail in
            detail["@type"]?.stringValue?.hasSuffix("google.rpc.BadRequest") == true
                && (detail["fieldViolations"]?.arrayValue ?? []).contains {
                    $0.objectValue?["field"]?.stringValue == FCMAnswer.tokenField
                }
        }
        let namesToken = message.map { $0.lowercased().contains(FCMAnswer.invalidTokenMessage.lowercased()) } ?? false
        isAboutToken = violatesToken || namesToken
    }
}
