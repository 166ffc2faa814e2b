import Crypto
import OpenPushCore
import OpenPushDelivery

/// `/metrics` behind `OPENPUSH_METRICS_TOKEN`: open when no token is configured, otherwise only
/// for `Authorization: Bearer <token>`. Route templates and pool figures say a lot about a
/// deployment, so an operator exposing the port can close them.
enum MetricsAccess {
    static let badToken = "missing or wrong metrics token — send `Authorization: Bearer <OPENPUSH_METRICS_TOKEN>`"

    static func require(_ authorization: String?, token: String?) throws(APIError) {
        guard let token else { return }
        // Digests of both sides compare in constant time whatever the lengths.
        guard let presented = bearer(authorization),
              constantTimeEquals(SHA256.hash(Array(presented.utf8)), SHA256.hash(Array(token.utf8)))
        else { throw APIError(status: 401, badToken, headers: ["WWW-Authenticate": "Bearer"]) }
    }

    /// The credentials after a `Bearer` scheme word (any case), or nil.
    static func bearer(_ authorization: String?) -> String? {
        guard let authorization else { return nil }
        let parts = authorization.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return String(parts[1]).trimmingWhitespace
    }
}
