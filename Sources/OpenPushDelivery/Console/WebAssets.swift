import Crypto
import Foundation

/// The static files under the resources directory's `web/` (`web/docs/`, `web/console/`), read
/// once at start and served from memory. Only a file loaded here can ever be answered, so no
/// request path reaches the file system: `..`, encoded slashes and symlinks added later are
/// simply unknown names.
package struct WebAssets: Sendable {
    package struct Asset: Sendable {
        package var body: [UInt8]
        package var contentType: String
        /// A strong validator: the start of the content's SHA-256, quoted.
        package var etag: String
    }

    /// Keyed by the path under `web/`, e.g. `docs/index.html`.
    private var assets: [String: Asset]

    /// Only 'self': no inline script or style, no other origin, not framed. The pages keep
    /// their JavaScript and CSS in files so this can stay this strict.
    package static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
        + "font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    /// Revalidated on every use (the ETag makes that a 304), so a new release is never hidden
    /// behind a stale cached copy.
    package static let cacheControl = "no-cache"

    package init(assets: [String: Asset] = [:]) {
        self.assets = assets
    }

    /// Reads every regular file under `directory` (one level of folders deep is all the pages
    /// need, but any depth loads). A missing directory is no assets at all.
    package static func load(directory: String) throws -> WebAssets {
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        guard manager.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            return WebAssets()
        }
        var assets: [String: Asset] = [:]
        for relative in try manager.subpathsOfDirectory(atPath: directory).sorted() {
            let path = directory + "/" + relative
            guard manager.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
            let name = relative.split(separator: "/").last.map(String.init) ?? relative
            // Editor backups and dot files are not part of a page.
            if name.hasPrefix(".") || name.hasSuffix("~") { continue }
            let body = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
            assets[relative] = Asset(body: body, contentType: contentType(forName: name),
                                     etag: "\"" + SHA256.hash(body).prefix(16).hexString + "\"")
        }
        return WebAssets(assets: assets)
    }

    package func asset(_ path: String) -> Asset? {
        assets[path]
    }

    /// Every loaded path, sorted (for tests and logs).
    package var paths: [String] { assets.keys.sorted() }

    package static func contentType(forName name: String) -> String {
        let suffix = name.split(separator: ".").last.map { $0.lowercased() } ?? ""
        switch suffix {
        case "html", "htm": return "text/html; charset=utf-8"
        case "css": return "text/css; charset=utf-8"
        case "js", "mjs": return "text/javascript; charset=utf-8"
        case "json", "map": return "application/json"
        case "svg": return "image/svg+xml"
        case "png": return "image/png"
        case "ico": return "image/x-icon"
        case "txt": return "text/plain; charset=utf-8"
        case "woff2": return "font/woff2"
        default: return "application/octet-stream"
        }
    }
}
