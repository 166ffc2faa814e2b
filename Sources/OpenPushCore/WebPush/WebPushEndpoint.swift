/// A subscription's endpoint as the transport sends to it: checked again at send time against
/// the deployment's push-service hosts and private-address rule (a row stored before a setting
/// changed), and its origin, the VAPID `aud` (RFC 8292 §2).
package struct WebPushEndpoint: Sendable, Equatable {
    package var target: WebhookTarget

    package enum Problem: Error, Sendable, Equatable {
        case malformed(WebhookURL.Problem)
        /// `http://` while private endpoints are not allowed.
        case notHTTPS
        /// The host is not on `OPENPUSH_WEB_PUSH_HOSTS`.
        case hostNotAllowed(String)
        case privateAddress

        package var message: String {
            switch self {
            case .malformed(let problem): "refused endpoint: \(problem.message)"
            case .notHTTPS: "refused endpoint: only https:// is allowed"
            case .hostNotAllowed(let host): "refused endpoint: host \(host) is not a push service on OPENPUSH_WEB_PUSH_HOSTS"
            case .privateAddress: "refused endpoint: a private, loopback or link-local address"
            }
        }
    }

    /// The endpoint, or why it may not be sent to under `hosts` and `allowPrivate`.
    package static func checked(_ url: String, hosts: [WebPushHostPattern], allowPrivate: Bool) -> Result<WebPushEndpoint, Problem> {
        if let problem = WebhookURL.problem(url, allowPrivate: true) { return .failure(.malformed(problem)) }
        guard let target = WebhookTarget(url: url) else { return .failure(.malformed(.malformed)) }
        guard target.scheme == "https" || allowPrivate else { return .failure(.notHTTPS) }
        guard hosts.contains(where: { $0.matches(target.host) }) else { return .failure(.hostNotAllowed(target.host)) }
        if !allowPrivate, WebhookURL.isPrivateHost(Substring(target.host)) { return .failure(.privateAddress) }
        return .success(WebPushEndpoint(target: target))
    }

    /// `scheme://host[:port]`, the port only when not the scheme's default.
    package var origin: String {
        let defaultPort = target.scheme == "https" ? 443 : 80
        return "\(target.scheme)://\(target.resolveHost)" + (target.port == defaultPort ? "" : ":\(target.port)")
    }
}
