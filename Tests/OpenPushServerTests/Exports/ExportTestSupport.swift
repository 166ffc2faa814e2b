import Foundation
import Testing
import Gzip
import HTTPServer
import OpenPushCore
import OpenPushDelivery
import OpenPushServer
import OpenPushTestSupport

/// What the export suites share: running the producer once, downloading a file and reading it
/// back as CSV records.
enum Exports {
    static let logger = Logger.discarding()

    /// One producer pass over the app's database, as a serve process's loop runs it.
    @discardableResult
    static func produce(_ app: TestApp, token: String = "test-producer") async throws -> Bool {
        try await ExportProducer.runOnce(app.services, token: token, database: app.services.database, logger: logger)
    }

    /// Produces every job recorded so far.
    static func produceAll(_ app: TestApp) async throws {
        while try await produce(app) {}
    }

    /// The path of a file URL (absolute or relative).
    static func path(_ url: String) -> String {
        guard let scheme = url.range(of: "://") else { return url }
        let rest = url[scheme.upperBound...]
        return rest.firstIndex(of: "/").map { String(rest[$0...]) } ?? "/"
    }

    /// Downloads in-process, collecting a streamed body as the HTTP server would send it.
    static func download(_ app: TestApp, _ url: String, key: String?) async throws -> TestResponse {
        let request = HTTPRequest(method: .get, path: path(url), headers: key.map(HTTPHeaders.restKey) ?? [:])
        var response = await app.application.respond(to: request)
        if let stream = response.stream {
            response.body = try await stream.collect()
            response.stream = nil
        }
        return TestResponse(response)
    }

    /// The file un-gzipped and split into records (this writer's CSV: quoted fields, CRLF).
    static func records(_ response: TestResponse) throws -> [[String]] {
        try #require(response.status == 200, "\(response.status) \(response.text)")
        #expect(response.headers["Content-Type"] == "application/gzip")
        return parse(String(decoding: try Gunzip.decompress(response.body), as: UTF8.self))
    }

    static func parse(_ text: String) -> [[String]] {
        var records: [[String]] = []
        var record: [String] = []
        var field = ""
        var quoted = false
        var characters = Array(text)[...]
        while let character = characters.popFirst() {
            if quoted {
                if character == "\"" {
                    if characters.first == "\"" { field.append("\""); characters.removeFirst() } else { quoted = false }
                } else {
                    field.append(character)
                }
            } else if character == "\"" {
                quoted = true
            } else if character == "," {
                record.append(field)
                field = ""
            } else if character == "\r\n" || character == "\n" {
                record.append(field)
                records.append(record)
                record = []
                field = ""
            } else {
                field.append(character)
            }
        }
        return records
    }

    /// Records as dictionaries keyed by the header's columns.
    static func rows(_ records: [[String]]) -> [[String: String]] {
        guard let header = records.first else { return [] }
        return records.dropFirst().map { Dictionary(uniqueKeysWithValues: zip(header, $0).map { ($0, $1) }) }
    }
}
