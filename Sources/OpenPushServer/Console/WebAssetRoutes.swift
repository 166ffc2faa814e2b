package import HTTPServer
import OpenPushCore
import OpenPushDelivery

/// Mounts one folder of `web/` at a path: `GET /docs` answers `web/docs/index.html` and
/// `GET /docs/{asset}` any other file of `web/docs/` (one level: the pages keep their files
/// flat). Unauthenticated, like `/openapi.json`: the pages are public, and whatever they show
/// comes from API calls that carry the reader's key.
///
/// Another page is one line in `Routes.registerAll`:
/// `WebAssetRoutes.mount(on: &router, at: "/console", folder: "console")`.
package enum WebAssetRoutes {
    package static func mount(on router: inout Router<RouteHandler>, at mountPath: String, folder: String) {
        router.add(.get, mountPath) { context in
            try serve(folder + "/index.html", context)
        }
        router.add(.get, mountPath + "/{asset}") { context in
            try serve(folder + "/" + context.pathParameter("asset"), context)
        }
    }

    /// The router already percent-decoded the segment; a decoded `/` or `..` just names no
    /// loaded file, so it is a `404` like any other unknown name.
    static func serve(_ path: String, _ context: RouteContext) throws -> HTTPResponse {
        guard let response = context.services.webAssets.response(for: path, request: context.request) else {
            throw APIError(status: 404, "Not Found")
        }
        return response
    }
}
