import Foundation
import Testing
import HTTPServer
import OpenPushCore
import OpenPushDelivery
import OpenPushServer
import OpenPushTestSupport

/// `GET /apps/{app_id}/exports/{file}` streams the stored chunks: a file of several chunks
/// arrives whole over a socket with its `Content-Length`, each chunk is read from PostgreSQL
/// only when the stream reaches it, and another app's key or path gets nothing.
@Suite struct ExportDownloadTests {
    /// Four full chunks and a short last one, incompressible, as the producer stores them.
    static let chunks: [[UInt8]] = (0..<5).map { position in
        (0..<(position == 4 ? 1000 : ExportLimits.chunkBytes)).map { _ in UInt8.random(in: 0...255) }
    }

    /// A ready export of `chunks`, written as the producer leaves one.
    static func seedReadyExport(_ app: TestApp, appID: String) async throws -> String {
        let id = "exp_stream\(UInt32.random(in: 0...UInt32.max))"
        let now = app.services.now()
        let total = Int64(chunks.reduce(0) { $0 + $1.count })
        try await app.seed { connection in
            try connection.query("""
                INSERT INTO exports (id, app_id, kind, state, row_count, byte_count, created_at, ready_at, expires_at)
                VALUES (\(id), \(appID), 'subscriptions', 'ready', 1, \(total), to_timestamp(\(now)), to_timestamp(\(now)),
                        to_timestamp(\(now + ExportLimits.retention)))
                """)
            for (position, data) in chunks.enumerated() {
                try connection.query("INSERT INTO export_chunks (export_id, position, data) VALUES (\(id), \(position), \(data))")
            }
        }
        return id
    }

    @Test func aFileOfSeveralChunksDownloadsWholeOverASocket() async throws {
        let app = try await TestApp.make()
        let first = try await app.createApp()
        let second = try await app.createApp()
        let id = try await Self.seedReadyExport(app, appID: first.app.id)
        let server = try app.startHTTP()
        defer { Task { await server.shutdown() } }
        let base = "http://127.0.0.1:\(server.port)"
        let url = "\(base)/apps/\(first.app.id)/exports/\(id).csv.gz"

        let file = try await Curl.run(["-H", "Authorization: Key \(first.restKey)", url])
        #expect(file.status == 200)
        #expect(file.headers["content-length"] == String(Self.chunks.reduce(0) { $0 + $1.count }))
        #expect(file.headers["content-type"] == "application/gzip")
        #expect(file.body == Self.chunks.flatMap { $0 }, "\(file.body.count) bytes")

        // Another app's key is refused; its own path does not reach this app's file.
        #expect(try await Curl.run(["-H", "Authorization: Key \(second.restKey)", url]).status == 401)
        let crossed = try await Curl.run(["-H", "Authorization: Key \(second.restKey)",
                                          "\(base)/apps/\(second.app.id)/exports/\(id).csv.gz"])
        #expect(crossed.status == 404)
        #expect(try JSONValue.parse(crossed.body).objectValue?["errors"] != nil)
    }

    @Test func eachChunkIsReadOnlyWhenTheStreamReachesIt() async throws {
        let app = try await TestApp.make()
        let created = try await app.createApp()
        let id = try await Self.seedReadyExport(app, appID: created.app.id)
        let response = await app.application.respond(to: HTTPRequest(
            method: .get, path: "/apps/\(created.app.id)/exports/\(id).csv.gz", headers: .restKey(created.restKey)))
        #expect(response.status == 200)
        #expect(response.body.isEmpty, "the file is not held in the response")
        let stream = try #require(response.stream)
        #expect(stream.length == UInt64(Self.chunks.reduce(0) { $0 + $1.count }))

        #expect(try await stream.next(0) == Self.chunks[0])
        // A chunk gone after the answer started: the stream fails when it gets there, not before.
        try await app.seed("DELETE FROM export_chunks WHERE export_id = \(id) AND position = 3")
        #expect(try await stream.next(1) == Self.chunks[1])
        #expect(try await stream.next(2) == Self.chunks[2])
        await #expect(throws: (any Error).self) { try await stream.next(3) }
        #expect(try await stream.next(5) == nil)
    }
}
