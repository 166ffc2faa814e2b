import Foundation
import Testing
import HTTPServer
import OpenPushCore
import OpenPushDelivery
@testable import OpenPushServer
import OpenPushTestSupport

/// The static files under `web/`: served from memory with their type, validators and security
/// headers, public, and nothing but the files loaded at start reachable.
@Suite struct WebAssetsTests {
    static let pages = ["/docs": "text/html; charset=utf-8", "/docs/docs.css": "text/css; charset=utf-8",
                        "/docs/docs.js": "text/javascript; charset=utf-8"]

    @Test func theDocsPageAndItsFilesNeedNoKeyAndCarryTheirTypeAndHeaders() async throws {
        let app = try await TestApp.make()
        for (path, type) in Self.pages {
            let response = await app.request(.get, path)
            #expect(response.status == 200, "\(path): \(response.text)")
            #expect(response.headers["Content-Type"] == type, "\(path)")
            #expect(response.headers["X-Content-Type-Options"] == "nosniff", "\(path)")
            #expect(response.headers["Cache-Control"] == "no-cache", "\(path)")
            let etag = try #require(response.headers["ETag"], "\(path)")
            #expect(etag.hasPrefix("\"") && etag.hasSuffix("\"") && etag.count == 34, "\(path): \(etag)")
            let policy = try #require(response.headers["Content-Security-Policy"], "\(path)")
            let directives = Dictionary(uniqueKeysWithValues: policy.split(separator: ";").map { directive in
                let words = directive.split(separator: " ").map(String.init)
                return (words[0], Array(words.dropFirst()))
            })
            #expect(directives["default-src"] == ["'none'"])
            for name in ["script-src", "style-src", "connect-src"] {
                #expect(directives[name] == ["'self'"], "\(name) in \(policy)")
            }
            #expect(directives["frame-ancestors"] == ["'none'"])
            #expect(!policy.contains("unsafe"), "\(policy)")
            #expect(!response.body.isEmpty)
        }
        let page = await app.request(.get, "/docs")
        #expect(page.text.contains("<script src=\"/docs/docs.js\""))
        #expect(page.text.contains("<link rel=\"stylesheet\" href=\"/docs/docs.css\">"))
        #expect(page.text.contains("name=\"viewport\""))
    }

    @Test func aMatchingIfNoneMatchIsA304AndAnyOtherTagTheFile() async throws {
        let app = try await TestApp.make()
        let first = await app.request(.get, "/docs/docs.js")
        let etag = try #require(first.headers["ETag"])
        for header in [etag, "W/\(etag)", "\"other\", \(etag)", "*"] {
            let again = await app.request(.get, "/docs/docs.js", headers: ["If-None-Match": header])
            #expect(again.status == 304, "If-None-Match: \(header)")
            #expect(again.body.isEmpty)
            #expect(again.headers["ETag"] == etag)
            #expect(again.headers["Content-Security-Policy"] == WebAssets.contentSecurityPolicy)
        }
        let stale = await app.request(.get, "/docs/docs.js", headers: ["If-None-Match": "\"0123456789abcdef0123456789abcdef\""])
        #expect(stale.status == 200)
        #expect(stale.body == first.body)
        // Each file has its own tag.
        let css = await app.request(.get, "/docs/docs.css", headers: ["If-None-Match": etag])
        #expect(css.status == 200)
        #expect(css.headers["ETag"] != etag)
    }

    @Test(arguments: ["/docs/nope.js", "/docs/index.htm", "/docs/..", "/docs/..%2Fopenapi%2Fopenapi.json",
                      "/docs/%2e%2e%2fmigrations", "/docs/../openapi.json", "/docs/docs.js/x", "/docs/", "/docs/.",
                      "/docs/%2Fetc%2Fpasswd"])
    func anUnknownAssetOrATraversalIsA404(path: String) async throws {
        let app = try await TestApp.make()
        let response = await app.request(.get, path)
        #expect(response.status == 404, "\(path): \(response.text)")
        #expect(response.json == ["errors": ["Not Found"]], "\(path)")
        #expect(response.headers["Content-Type"] == "application/json")
    }

    /// Over a real socket, with the path sent exactly as written (curl would otherwise squash
    /// the dots itself), so what libmicrohttpd hands the router is what is checked.
    @Test func traversalOverASocketIsA404() async throws {
        let app = try await TestApp.make()
        let server = try app.startHTTP()
        let base = "http://127.0.0.1:\(server.port)"
        for path in ["/docs/../openapi/openapi.json", "/docs/..%2f..%2fPackage.swift", "/docs/%2e%2e/README.md",
                     "/docs/./docs.js/../../migrations"] {
            let result = try await Curl.run(["--path-as-is", base + path])
            #expect(result.status == 404, "\(path): \(result.text)")
            #expect(!result.text.contains("openapi\":"))
        }
        let page = try await Curl.run([base + "/docs"])
        #expect(page.status == 200)
        #expect(page.headers["content-type"] == "text/html; charset=utf-8")
        await server.shutdown()
    }

    /// No asset loads anything from another origin: no remote script, style, font or image,
    /// and the script fetches only paths of this server.
    @Test func aPageWorksOfflineBecauseItNamesNoOtherOrigin() async throws {
        let app = try await TestApp.make()
        let markers = ["/docs": ["src=\"http", "href=\"http", "src=\"//", "href=\"//"],
                       "/docs/docs.css": ["url(", "@import", "@font-face"],
                       "/docs/docs.js": ["fetch(\"http", "fetch('http", "fetch(`http", "import(", "googleapis"]]
        for (path, forbidden) in markers {
            let text = await app.request(.get, path).text
            #expect(!text.isEmpty)
            for marker in forbidden {
                #expect(!text.contains(marker), "\(path) contains \(marker)")
            }
        }
    }

    @Test func loadReadsEveryFileOnceWithItsTypeAndSkipsDotFiles() throws {
        let directory = try TemporaryDirectory.make(prefix: "web-assets")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory + "/console/img", withIntermediateDirectories: true)
        try "<p>hi</p>".write(toFile: directory + "/console/index.html", atomically: true, encoding: .utf8)
        try "<svg/>".write(toFile: directory + "/console/img/logo.svg", atomically: true, encoding: .utf8)
        try "x".write(toFile: directory + "/console/.index.html.swp", atomically: true, encoding: .utf8)
        try "x".write(toFile: directory + "/console/app.js~", atomically: true, encoding: .utf8)
        let assets = try WebAssets.load(directory: directory)
        #expect(assets.paths == ["console/img/logo.svg", "console/index.html"])
        #expect(assets.asset("console/index.html")?.contentType == "text/html; charset=utf-8")
        #expect(assets.asset("console/img/logo.svg")?.contentType == "image/svg+xml")
        #expect(assets.asset("console/index.html")?.body == Array("<p>hi</p>".utf8))

        // Changing the file on disk changes nothing served: it was read at start.
        try "<p>changed</p>".write(toFile: directory + "/console/index.html", atomically: true, encoding: .utf8)
        #expect(assets.asset("console/index.html")?.body == Array("<p>hi</p>".utf8))
        #expect(try WebAssets.load(directory: directory + "/missing").paths.isEmpty)
    }

    @Test(arguments: [("a.html", "text/html; charset=utf-8"), ("a.CSS", "text/css; charset=utf-8"),
                      ("a.js", "text/javascript; charset=utf-8"), ("a.json", "application/json"), ("a.png", "image/png"),
                      ("a.svg", "image/svg+xml"), ("README", "application/octet-stream"), ("a.wasm", "application/octet-stream")])
    func contentTypeByExtension(name: String, type: String) {
        #expect(WebAssets.contentType(forName: name) == type)
    }

    @Test func aMountedFolderAnswersItsIndexAndFiles() async throws {
        let directory = try TemporaryDirectory.make(prefix: "web-mount")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory + "/panel", withIntermediateDirectories: true)
        try "<p>panel</p>".write(toFile: directory + "/panel/index.html", atomically: true, encoding: .utf8)
        try "body{}".write(toFile: directory + "/panel/panel.css", atomically: true, encoding: .utf8)
        let assets = try WebAssets.load(directory: directory)
        let base = try await TestApp.make()
        var services = base.services
        services.webAssets = assets
        let application = OpenPushApplication(services: services, logger: Logger(label: "test", level: .error, handler: base.logs),
                                              routes: { WebAssetRoutes.mount(on: &$0, at: "/panel", folder: "panel") })
        let app = MountedApp(application: application)
        #expect(await app.request(.get, "/panel").text == "<p>panel</p>")
        #expect(await app.request(.get, "/panel/panel.css").headers["Content-Type"] == "text/css; charset=utf-8")
        #expect(await app.request(.get, "/panel/index.html").status == 200)
        #expect(await app.request(.get, "/panel/other.css").status == 404)
        #expect(await app.request(.get, "/docs").status == 404, "the docs folder is not in this set")
    }
}

/// Calls an application built with other assets than the repository's.
private struct MountedApp {
    let application: OpenPushApplication

    func request(_ method: HTTPMethod, _ path: String) async -> TestResponse {
        TestResponse(await application.respond(to: HTTPRequest(method: method, path: path)))
    }
}
