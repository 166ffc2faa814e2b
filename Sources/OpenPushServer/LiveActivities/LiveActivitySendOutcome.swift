import HTTPServer
import OpenPushCore
import OpenPushDelivery

/// What a send request came to, decided inside its transaction and rendered after commit.
/// Every authenticated request counts against the rate limit, refused or not: the limit is
/// committed before the work starts (see `SendTransaction`).
enum SendOutcome: Sendable {
    case created(status: Int, body: JSONValue, audienceTotal: Int, audienceSent: Int)
    case replayed(status: Int, body: JSONValue)
    case refused(APIError)

    static let rateLimited = SendOutcome.refused(
        APIError(status: 429, SendMessages.tooManyRequests, headers: ["Retry-After": "60"]))

    func response() throws -> HTTPResponse {
        switch self {
        case .created(let status, let body, let total, let sent):
            return .json(body, status: status, headers: [
                "OpenPush-Audience-Total": String(total),
                "OpenPush-Audience-Sent": String(sent),
            ])
        case .replayed(let status, let body):
            return .json(body, status: status, headers: ["Idempotent-Replayed": "true"])
        case .refused(let error):
            throw error
        }
    }
}
