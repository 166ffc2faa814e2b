import HTTPServer
import OpenPushDelivery

/// `GET /sdk/web/openpush.js` (the page snippet) and `GET /sdk/web/openpush-sw.js` (the service
/// worker), from `web/sdk/`, without authentication: they hold no secret, and the snippet is
/// loaded by the app's own pages from its own site. Cached with their ETag (revalidated), and
/// loadable from any origin (`Cross-Origin-Resource-Policy`); the worker may control the whole
/// origin when OpenPush itself serves the page (`Service-Worker-Allowed: /`).
enum WebSDKRoutes {
    static func register(on router: inout Router<RouteHandler>) {
        router.add(.get, "/sdk/web/openpush.js") { try serve("sdk/openpush.js", worker: false, $0) }
        router.add(.get, "/sdk/web/openpush-sw.js") { try serve("sdk/openpush-sw.js", worker: true, $0) }
    }

    static func serve(_ path: String, worker: Bool, _ context: RouteContext) throws -> HTTPResponse {
        guard let asset = context.services.webAssets.asset(path) else { throw APIError(status: 404, "Not Found") }
        var response: HTTPResponse
        if WebAssets.matches(ifNoneMatch: context.request.headers["If-None-Match"], etag: asset.etag) {
            response = HTTPResponse(status: 304)
        } else {
            response = HTTPResponse(status: 200, body: asset.body)
            response.headers.add(name: "Content-Type", value: asset.contentType)
        }
        response.headers.add(name: "ETag", value: asset.etag)
        response.headers.add(name: "Cache-Control", value: WebAssets.cacheControl)
        response.headers.add(name: "X-Content-Type-Options", value: "nosniff")
        response.headers.add(name: "Cross-Origin-Resource-Policy", value: "cross-origin")
        response.headers.add(name: "Access-Control-Allow-Origin", value: "*")
        if worker { response.headers.add(name: "Service-Worker-Allowed", value: "/") }
        return response
    }
}
