import Foundation
package import HTTPServer
package import OpenPushCore
package import OpenPushDelivery
import Postgres

/// The HTTP responder: routes a request, turns thrown errors into the family's error body,
/// and records an access-log line and metrics for every answer.
package final class OpenPushApplication: HTTPResponder {
    package let router: Router<RouteHandler>
    package let services: Services
    private let logger: Logger

    /// `routes` lets a caller add routes beside OpenPush's own (the test harness does).
    package init(services: Services, logger: Logger, routes: (inout Router<RouteHandler>) -> Void = { _ in }) {
        self.services = services
        self.logger = logger
        var router = Router<RouteHandler>()
        Routes.registerAll(on: &router)
        routes(&router)
        self.router = router
    }

    package func respond(to request: HTTPRequest) async -> HTTPResponse {
        let started = ContinuousClock.now
        let family = RouteFamily.of(path: request.path)
        let requestLogger = logger.with("request.id", request.requestID)
        var (response, route) = BrowserAccess.isPreflight(request, family: family)
            ? (BrowserAccess.preflight(), "preflight")
            : await route(request, family: family, logger: requestLogger)
        BrowserAccess.allow(&response, family: family)
        record(request, response, route: route, since: started, logger: requestLogger)
        return response
    }

    package func bodyTooLarge(_ request: HTTPRequest) async -> HTTPResponse {
        let family = RouteFamily.of(path: request.path)
        let limit = services.configuration.maxBodyBytes
        let response = HTTPResponse.error(
            APIError(status: 413, "the request body is larger than the \(limit)-byte limit"), family: family)
        let route: String
        if case .found(_, let template, _) = router.match(method: request.method, path: request.path) {
            route = template
        } else {
            route = "unmatched"
        }
        record(request, response, route: route, since: .now, logger: logger.with("request.id", request.requestID))
        return response
    }

    private func route(_ request: HTTPRequest, family: RouteFamily, logger: Logger) async -> (HTTPResponse, String) {
        switch router.match(method: request.method, path: request.path) {
        case .notFound:
            return (.error(APIError(status: 404, "Not Found"), family: family), "unmatched")
        case .methodNotAllowed(let template, let allowed):
            let allow = allowed.map(\.rawValue).joined(separator: ", ")
            return (.error(APIError(status: 405, "Method Not Allowed", headers: ["Allow": allow]), family: family), template)
        case .found(let handler, let template, let parameters):
            var request = request
            request.pathParameters = parameters
            // The operations routes read nothing a client sends.
            let nulProblems = family == .operations ? [] : request.nulProblems
            guard nulProblems.isEmpty else {
                return (.error(APIError(status: 400, messages: nulProblems), family: family), template)
            }
            let context = RouteContext(request: request, family: family, services: services, logger: logger)
            do {
                return (try await handler(context), template)
            } catch {
                return (errorResponse(error, family: family, request: request, logger: logger), template)
            }
        }
    }

    /// Known errors keep their status; a lost database is a `503`; anything else is a `500`
    /// whose details stay in the log.
    func errorResponse(_ error: any Error, family: RouteFamily, request: HTTPRequest, logger: Logger) -> HTTPResponse {
        if let apiError = APIError.answering(error) {
            return .error(apiError, family: family)
        }
        if let databaseError = error as? PostgresError, databaseError.isUnavailable {
            logger.warning("database unavailable", ["error": databaseError.description])
            return .error(APIError(status: 503, "the database is unavailable, try again shortly",
                                   headers: ["Retry-After": "1"]), family: family)
        }
        logger.error("unhandled error", ["error": String(describing: error)])
        return .error(APIError(status: 500, "internal server error (request \(request.requestID))"), family: family)
    }

    private func record(_ request: HTTPRequest, _ response: HTTPResponse, route: String, since started: ContinuousClock.Instant,
                        logger: Logger) {
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        services.metrics.recordRequest(method: request.method.rawValue, route: route, status: response.status, seconds: seconds)
        logger.info("\(request.method.rawValue) \(request.path) \(response.status)", [
            "http.route": route,
            "http.duration_ms": String(format: "%.2f", seconds * 1000),
        ])
    }
}
