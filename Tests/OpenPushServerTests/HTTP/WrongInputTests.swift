import Testing
import HTTPServer
import OpenPushCore
@testable import OpenPushServer
import OpenPushTestSupport

/// Every registered route, every input it reads (each top-level body field and each key one
/// level down, each path parameter, query parameter and header it reads), every class of wrong
/// value (`WrongValue.all`): never a 5xx, every error in the route family's shape, and a NUL
/// anywhere is a `400` naming the input.
@Suite struct WrongInputTests {
    @Test func everyRouteAnswersEveryWrongValueWithoutA5xx() async throws {
        let world = try await WrongInputWorld.make()
        let cases = world.cases
        let registered = world.app.application.router.routes.map { "\($0.method.rawValue) \($0.template)" }
        let covered = Set(cases.map { "\($0.method.rawValue) \($0.template)" })
        #expect(Set(registered).subtracting(covered).isEmpty, "routes without a case in WrongInputWorld.cases")
        #expect(covered.subtracting(registered).isEmpty, "cases for routes that do not exist")

        var failures: [String] = []
        var requests = 0
        for routeCase in cases {
            for target in Self.targets(of: routeCase) {
                var request = routeCase
                if routeCase.freshSendApp {
                    let created = try await world.sendableApp()
                    request.pathValues["app_id"] = created.app.id
                    request.headers = .restKey(created.restKey)
                    if request.pathValues["channel_id"] != nil {
                        request.pathValues["channel_id"] = WrongInputWorld.channelID(of: created.app.id)
                    }
                }
                for wrong in WrongValue.all {
                    guard let response = await Self.send(request, target, wrong, app: world.app) else { continue }
                    requests += 1
                    let label = "\(routeCase.method.rawValue) \(routeCase.template) \(target) = \(wrong)"
                    failures += Self.problems(response, label: label, path: request.path(),
                                              nulInput: wrong.hasNUL ? target.name : nil)
                }
            }
        }
        #expect(requests > 2000)
        #expect(failures.isEmpty, "\(failures.count) of \(requests) answers were wrong:\n\(failures.sorted { !$0.hasPrefix("NUL") && $1.hasPrefix("NUL") }.prefix(60).joined(separator: "\n"))")
    }

    /// One input of a request to replace.
    enum Target: CustomStringConvertible {
        case body(BodyField)
        case path(String)
        case query(String)
        case header(String)

        /// How an error message names the input.
        var name: String {
            switch self {
            case .body(let field): field.description
            case .path(let name), .query(let name), .header(let name): name
            }
        }

        var description: String {
            switch self {
            case .body(let field): "body \(field)"
            case .path(let name): "path {\(name)}"
            case .query(let name): "query \(name)"
            case .header(let name): "header \(name)"
            }
        }
    }

    static func targets(of routeCase: RouteCase) -> [Target] {
        (routeCase.body.map(BodyField.all(in:)) ?? []).map(Target.body)
            + routeCase.pathParameters.map(Target.path)
            + routeCase.query.keys.sorted().map(Target.query)
            + routeCase.readHeaders.map(Target.header)
    }

    /// The request with `target` replaced by `wrong`; nil when the value has no form there.
    static func send(_ routeCase: RouteCase, _ target: Target, _ wrong: WrongValue, app: TestApp) async -> TestResponse? {
        var path = routeCase.path()
        var query = routeCase.query
        var headers = routeCase.headers
        var body = routeCase.body.map { JSONValue.object($0).serializedBytes } ?? []
        switch target {
        case .body(let field):
            body = field.text(of: routeCase.body ?? [:], with: wrong.json)
        case .path(let name):
            path = routeCase.path([name: wrong.pathSegment])
        case .query(let name):
            guard let text = wrong.text else { return nil }
            query[name] = text
        case .header(let name):
            guard let text = wrong.text else { return nil }
            headers.replaceOrAdd(name: name, value: text)
        }
        if routeCase.body != nil { headers.replaceOrAdd(name: "Content-Type", value: "application/json") }
        return await app.request(routeCase.method, path, headers: headers, body: body, query: query)
    }

    /// What is wrong with one answer: a 5xx, an error body not in the family's shape, or a NUL
    /// that is not a `400` naming `nulInput`.
    static func problems(_ response: TestResponse, label: String, path: String, nulInput: String?) -> [String] {
        let shown = "\(label) → \(response.status) \(response.text.prefix(300))"
        if response.status >= 500 { return ["5xx: \(shown)"] }
        var problems: [String] = []
        var messages: [String] = []
        if response.status >= 400 {
            switch (RouteFamily.of(path: path), response.json?.objectValue) {
            case (.native, let body?) where body.keys == ["detail"] && body["detail"]?.stringValue?.isEmpty == false:
                messages = [body["detail"]?.stringValue ?? ""]
            case (.rest, let body?), (.operations, let body?):
                if body.keys == ["errors"], let errors = body["errors"]?.arrayValue, !errors.isEmpty,
                   errors.allSatisfy({ $0.stringValue != nil }) {
                    messages = errors.compactMap(\.stringValue)
                } else {
                    problems.append("shape: \(shown)")
                }
            default:
                problems.append("shape: \(shown)")
            }
        }
        if let nulInput {
            let expected = "\(nulInput) must not contain NUL characters"
            if response.status != 400 || !messages.contains(where: { $0.contains(expected) }) {
                problems.append("NUL not refused as '\(expected)': \(shown)")
            }
        }
        return problems
    }
}
