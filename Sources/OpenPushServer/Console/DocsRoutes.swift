import OpenPushDelivery
import HTTPServer

/// `GET /docs`: the API reference, a page that renders `/openapi.json` in the browser
/// (`web/docs/`: one HTML, one CSS, one JS file).
enum DocsRoutes {
    static func register(on router: inout Router<RouteHandler>) {
        WebAssetRoutes.mount(on: &router, at: "/docs", folder: "docs")
    }
}
