package import OpenPushCore
import OpenPushDelivery

/// The families of routes OpenPush serves. Each family has its own error body shape, which
/// existing clients of that family parse.
package enum RouteFamily: Sendable, Equatable {
    /// `/v1/apps/{app_id}/…`, called by mobile SDKs: `{"detail": "…"}`.
    case native
    /// The send routes and the REST API, OneSignal-shaped: `{"errors": ["…"]}`.
    case rest
    /// `/health`, `/ready`, `/metrics`, `/openapi.json`, `/docs`.
    case operations

    package static let operationsPaths: Set<String> = ["/health", "/ready", "/metrics", "/openapi.json", "/docs"]

    /// The family a path belongs to, decided from the path alone so that even a request that
    /// matches no route (404, 405, 413) is answered in the shape its client expects.
    package static func of(path: String) -> RouteFamily {
        if path == "/v1" || path.hasPrefix("/v1/") { return .native }
        if operationsPaths.contains(path) { return .operations }
        return .rest
    }

    /// The error body for this family. `detail` carries the messages joined; `errors` lists them.
    package func errorBody(_ messages: [String]) -> JSONValue {
        switch self {
        case .native:
            return ["detail": .string(messages.joined(separator: "; "))]
        case .rest, .operations:
            return ["errors": .array(messages.map { .string($0) })]
        }
    }
}
