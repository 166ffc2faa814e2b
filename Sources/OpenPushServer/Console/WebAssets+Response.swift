import Foundation
package import HTTPServer
package import OpenPushDelivery

/// Answering requests from the loaded assets: the HTTP side of `WebAssets`, which the services
/// of every process (HTTP or not) hold.
extension WebAssets {
    /// The asset at `path` for `request`: `200` with it, `304` when the client's
    /// `If-None-Match` already names its ETag, or `nil` when no such asset was loaded.
    package func response(for path: String, request: HTTPRequest) -> HTTPResponse? {
        guard let asset = asset(path) else { return nil }
        var response: HTTPResponse
        if Self.matches(ifNoneMatch: request.headers["If-None-Match"], etag: asset.etag) {
            response = HTTPResponse(status: 304)
        } else {
            response = HTTPResponse(status: 200, body: asset.body)
            response.headers.add(name: "Content-Type", value: asset.contentType)
        }
        response.headers.add(name: "ETag", value: asset.etag)
        response.headers.add(name: "Cache-Control", value: Self.cacheControl)
        response.headers.add(name: "X-Content-Type-Options", value: "nosniff")
        response.headers.add(name: "Content-Security-Policy", value: Self.contentSecurityPolicy)
        response.headers.add(name: "Referrer-Policy", value: "no-referrer")
        return response
    }

    /// RFC 9110 §13.1.2: `*`, or a comma-separated list of tags compared weakly (a `W/`
    /// prefix on either side does not matter for `If-None-Match`).
    static func matches(ifNoneMatch header: String?, etag: String) -> Bool {
        guard let header else { return false }
        let wanted = etag.hasPrefix("W/") ? String(etag.dropFirst(2)) : etag
        for candidate in header.split(separator: ",") {
            var tag = candidate.trimmingCharacters(in: .whitespaces)
            if tag == "*" { return true }
            if tag.hasPrefix("W/") { tag.removeFirst(2) }
            if tag == wanted { return true }
        }
        return false
    }
}
