import OpenPushDelivery
import HTTPServer

/// `GET /console`: the operator console, a single page (`web/console/`: one HTML, one CSS, a
/// few JS files) signed in with the organization key, which it keeps in `sessionStorage` and
/// sends as `Authorization: Key …` to the public API and the stats routes. No cookies.
enum ConsoleRoutes {
    static func register(on router: inout Router<RouteHandler>) {
        WebAssetRoutes.mount(on: &router, at: "/console", folder: "console")
    }
}
