import Foundation
import Testing
import OpenPushTestSupport

/// The layering the code promises, read from the sources: route handlers parse, call a service
/// or store, and render — no SQL, no connection, no transaction of their own; and the pure core
/// holds no HTTP (no status-carrying error, no route families) and imports nothing.
@Suite struct LayeringTests {
    static let sources = TestApp.repositoryRoot + "/Sources"

    /// Swift files under `folder`, by path relative to it.
    static func swiftFiles(under folder: String) throws -> [String] {
        let paths = try #require(FileManager.default.enumerator(atPath: folder)?.allObjects as? [String])
        return paths.filter { $0.hasSuffix(".swift") }.sorted()
    }

    static func text(_ path: String) throws -> String {
        try String(contentsOfFile: path, encoding: .utf8)
    }

    @Test func routeFilesRunNoSQL() throws {
        let server = Self.sources + "/OpenPushServer"
        let routes = try Self.swiftFiles(under: server).filter { path in
            path.split(separator: "/").last?.contains("Route") == true
        }
        #expect(routes.count > 20)
        let database = ["query(", "transaction", "withConnection", "PostgresConnection"]
        for path in routes {
            let text = try Self.text(server + "/" + path)
            for word in database where text.contains(word) {
                Issue.record("\(path) uses \(word): a route handler calls its feature's service or store instead")
            }
        }
    }

    @Test func theCoreHoldsNoHTTPAndImportsNothing() throws {
        let core = Self.sources + "/OpenPushCore"
        for path in try Self.swiftFiles(under: core) {
            let text = try Self.text(core + "/" + path)
            for line in text.split(separator: "\n") where line.hasPrefix("import ") || line.hasPrefix("public import ") {
                Issue.record("\(path): \(line) — OpenPushCore imports nothing")
            }
            for word in ["APIError", "RouteFamily", "Retry-After\"", "status: 4", "status: 5"] where text.contains(word) {
                Issue.record("\(path) holds \(word): HTTP belongs to the server")
            }
        }
    }

    /// The delivery engine's target does not reach the HTTP server, so `openpush worker`'s code
    /// needs none of it.
    @Test func theDeliveryTargetDoesNotImportTheHTTPServer() throws {
        let delivery = Self.sources + "/OpenPushDelivery"
        let files = try Self.swiftFiles(under: delivery)
        #expect(files.count > 50)
        for path in files {
            for line in try Self.text(delivery + "/" + path).split(separator: "\n")
            where line.hasSuffix("import HTTPServer") || line.hasSuffix("import OpenPushServer") {
                Issue.record("\(path): \(line) — the delivery engine does not link the HTTP server")
            }
        }
    }

    /// Files stay small enough to read: none in `Sources/` passes 500 lines.
    @Test func noSourceFileIsOver500Lines() throws {
        let files = try Self.swiftFiles(under: Self.sources)
        #expect(files.count > 300)
        for path in files {
            let lines = try Self.text(Self.sources + "/" + path).split(separator: "\n", omittingEmptySubsequences: false).count
            if lines > 501 { Issue.record("\(path) has \(lines) lines; split it by concern") }
        }
    }
}
