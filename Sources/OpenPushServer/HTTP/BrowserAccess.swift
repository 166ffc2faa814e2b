import HTTPServer

/// Cross-origin access to the `/v1` routes for the browser SDK (`/sdk/web/openpush.js`), which
/// runs on the app's own site and calls OpenPush from there. Those routes authenticate with
/// headers only (the public SDK key), never cookies, so any origin may call them: a preflight
/// (`OPTIONS`) is answered `204`, and every `/v1` answer carries `Access-Control-Allow-Origin: *`.
enum BrowserAccess {
    static let requestHeaders = "Content-Type, X-OP-SDK-Key, X-OP-Device-Key"

    static func isPreflight(_ request: HTTPRequest, family: RouteFamily) -> Bool {
        family == .native && request.method.rawValue == "OPTIONS"
    }

    static func preflight() -> HTTPResponse {
        var response = HTTPResponse(status: 204)
        response.headers.add(name: "Access-Control-Allow-Methods", value: "GET, POST")
        response.headers.add(name: "Access-Control-Allow-Headers", value: requestHeaders)
        response.headers.add(name: "Access-Control-Max-Age", value: "86400")
        return response
    }

    static func allow(_ response: inout HTTPResponse, family: RouteFamily) {
        guard family == .native else { return }
        response.headers.add(name: "Access-Control-Allow-Origin", value: "*")
    }
}
