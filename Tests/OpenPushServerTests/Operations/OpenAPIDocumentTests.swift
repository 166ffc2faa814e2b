import Foundation
import Testing
import HTTPServer
import OpenPushCore
@testable import OpenPushDelivery
@testable import OpenPushServer
import OpenPushTestSupport

/// The document in `openapi/` is the API's public face: every route the router registers must
/// be in it with its error responses, and nothing in it may be a route that does not exist.
@Suite struct OpenAPIDocumentTests {
    /// The merged document, as `/openapi.json` serves it.
    static func document() throws -> JSONObject {
        try #require(try OpenAPIDocument.load(directory: TestApp.repositoryRoot + "/openapi").objectValue)
    }

    static func operations(_ document: JSONObject) -> Set<String> {
        var result = Set<String>()
        for (path, item) in document["paths"]?.objectValue ?? JSONObject() {
            for (method, _) in item.objectValue ?? JSONObject() {
                result.insert("\(method.uppercased()) \(path)")
            }
        }
        return result
    }

    @Test func everyRegisteredRouteIsDocumentedAndNothingElse() async throws {
        let app = try await TestApp.make()
        let registered = Set(app.application.router.routes.map { "\($0.method.rawValue) \($0.template)" })
        let documented = Self.operations(try Self.document())
        #expect(registered.subtracting(documented).isEmpty, "routes missing from openapi/openapi.json")
        #expect(documented.subtracting(registered).isEmpty, "documented routes that do not exist")
    }

    @Test func everyOperationListsItsResponses() throws {
        let document = try Self.document()
        for (path, item) in document["paths"]?.objectValue ?? JSONObject() {
            for (method, operation) in item.objectValue ?? JSONObject() {
                let responses = operation.objectValue?["responses"]?.objectValue
                #expect(responses?.isEmpty == false, "\(method) \(path) has no responses")
                let hasBody = operation.objectValue?["requestBody"] != nil
                if hasBody {
                    #expect(responses?["400"] != nil, "\(method) \(path) takes a body but documents no 400")
                }
            }
        }
    }

    @Test func fragmentsMergeAndMayNotRedefineAPath() throws {
        var document: JSONObject = ["paths": ["/a": ["get": ["responses": ["200": ["description": "ok"]]]]]]
        let fragment: JSONObject = ["paths": ["/b": ["get": ["responses": ["200": ["description": "ok"]]]]],
                                    "components": ["schemas": ["B": ["type": "object"]]]]
        try OpenAPIDocument.merge(fragment, into: &document, source: "b.json")
        #expect(document["paths"]?.objectValue?.keys == ["/a", "/b"])
        #expect(document["components"]?.objectValue?["schemas"]?.objectValue?["B"] != nil)
        #expect(throws: OpenAPIDocument.Invalid.self) {
            try OpenAPIDocument.merge(fragment, into: &document, source: "b-again.json")
        }
    }
}
