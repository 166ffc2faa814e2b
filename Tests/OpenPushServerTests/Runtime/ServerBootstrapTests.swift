import Foundation
import Testing
import OpenPushTestSupport
import OpenPushDelivery
@testable import OpenPushServer

/// A process that serves no HTTP (`openpush worker`) starts without reading what only HTTP
/// routes serve: the OpenAPI document and the web pages.
@Suite struct ServerBootstrapTests {
    /// Resources with the real migrations, an OpenAPI document that does not parse, and no web pages.
    static func resourcesWithoutHTTPParts() throws -> String {
        let directory = try TemporaryDirectory.make(prefix: "openpush-resources")
        let real = try ResourceLocator.resourcesDirectory(configured: nil)
        try FileManager.default.createSymbolicLink(atPath: directory + "/migrations", withDestinationPath: real + "/migrations")
        try FileManager.default.createDirectory(atPath: directory + "/openapi", withIntermediateDirectories: true)
        try Data("not a document".utf8).write(to: URL(fileURLWithPath: directory + "/openapi/openapi.json"))
        return directory
    }

    @Test func aWorkerReadsNeitherTheOpenAPIDocumentNorTheWebPages() throws {
        let directory = try Self.resourcesWithoutHTTPParts()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var configuration = try Configuration.fromEnvironment([:])
        configuration.resourcesDirectory = directory
        let worker = try ServerBootstrap.makeServices(configuration: configuration, databaseURL: "host=db dbname=openpush",
                                                      servingHTTP: false)
        #expect(worker.openAPIDocument.isEmpty)
        #expect(!worker.migrations.isEmpty)
        // A process serving HTTP needs both, and says so.
        #expect(throws: (any Error).self) {
            try ServerBootstrap.makeServices(configuration: configuration, databaseURL: "host=db dbname=openpush")
        }
    }
}
