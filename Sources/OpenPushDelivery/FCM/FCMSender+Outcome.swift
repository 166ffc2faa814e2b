import OpenPushCore

/// One send's result before it becomes the push's outcome.
enum FCMSendResult: Sendable {
    case answered(status: Int, FCMAnswer)
    case unanswered(APNSTransportError)

    /// FCM refused the access token: worth one more try with a fresh one.
    var asksForNewToken: Bool {
        if case .answered(_, .reauthenticate) = self { return true }
        return false
    }

    /// The outcome the engine records. Reasons are FCM's codes or a few fixed texts: they are
    /// metric labels too.
    var outcome: PushOutcome {
        switch self {
        case .unanswered(let error):
            return .unanswered(reason: "Transport: \(FCMSendResult.kind(of: error))", permanent: false)
        case .answered(let status, let answer):
            var result = PushOutcome.Answer(status: status, verdict: .accepted, service: .fcm)
            switch answer {
            case .accepted(let name):
                result.messageName = name
            case .tokenDead(let code):
                result.verdict = .deadToken(APNSReason(code.rawValue))
            case .failed(let code, let message):
                result.verdict = .permanent(APNSReason(code.rawValue))
                result.detail = message
            case .retryAfter(let seconds):
                result.verdict = .retry(APNSReason(FCMErrorCode.quotaExceeded.rawValue))
                result.retryAfter = seconds.map(Double.init)
            case .retry(let code):
                result.verdict = .retry(APNSReason(code.rawValue))
            case .reauthenticate(let code):
                // Only after a fresh token was refused too (`FCMSender.deliver`).
                result.verdict = .credentials(APNSReason(code.rawValue))
            }
            return .answered(result)
        }
    }

    private static func kind(of error: APNSTransportError) -> String {
        switch error.kind {
        case .timeout: "timed out"
        case .shutdown: "client shut down"
        case .connectFailed: "connect failed"
        case .connectionLost: "connection lost"
        case .invalidHeader: "invalid request"
        default: "request failed"
        }
    }
}

extension FCMSender {
    /// No access token: a refused service account pauses the app's FCM sending (its reason is
    /// shown on the app); an unreachable token endpoint is retried like a transport failure.
    static func outcome(tokenError error: FCMAccessTokenError) -> PushOutcome {
        switch error {
        case .refused:
            // FCM was not asked: no status of its own.
            return .answered(.init(status: 0, verdict: .credentials(APNSReason(error.description)), service: .fcm))
        case .unavailable:
            return .unanswered(reason: "Transport: FCM token endpoint unavailable", permanent: false)
        }
    }

    /// An FCM URL as the client's endpoint (`scheme://authority`) and the path every send
    /// starts with (none, or the URL's path without its last `/`).
    static func split(_ url: String) -> (origin: String, path: String) {
        let trimmed = url.hasSuffix("/") ? String(url.dropLast()) : url
        guard let scheme = trimmed.range(of: "://"),
              let slash = trimmed[scheme.upperBound...].firstIndex(of: "/") else { return (trimmed, "") }
        return (String(trimmed[..<slash]), String(trimmed[slash...]))
    }

    /// A project id as one URL path segment (they are letters, digits and dashes; anything
    /// else is percent-encoded rather than trusted).
    static func pathSegment(_ text: String) -> String {
        var encoded = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: ":"):
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".utf8)
                encoded += "%" + String(decoding: [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]], as: UTF8.self)
            }
        }
        return encoded
    }
}
