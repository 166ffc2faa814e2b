import HTTPServer
import Testing

@Suite struct RouterTests {
    private func found(_ match: RouteMatch<String>) -> (handler: String, template: String, parameters: [String: String])? {
        guard case let .found(handler, template, parameters) = match else { return nil }
        return (handler, template, parameters)
    }

    @Test func extractsPathParameters() throws {
        var router = Router<String>()
        router.add(.post, "/v1/apps/{app_id}/live-activities/{activity_id}/end", "end")
        let match = try #require(found(router.match(method: .post, path: "/v1/apps/app-1/live-activities/act-9/end")))
        #expect(match.handler == "end")
        #expect(match.template == "/v1/apps/{app_id}/live-activities/{activity_id}/end")
        #expect(match.parameters == ["app_id": "app-1", "activity_id": "act-9"])
    }

    @Test func literalSegmentBeatsParameter() throws {
        var router = Router<String>()
        router.add(.post, "/v1/apps/{app_id}/live-activities/{activity_id}/remove", "param")
        router.add(.post, "/v1/apps/{app_id}/live-activities/push-to-start/remove", "literal")
        router.add(.post, "/v1/apps/{app_id}/live-activities/{activity_id}/end", "end")

        let literal = try #require(found(router.match(method: .post, path: "/v1/apps/a/live-activities/push-to-start/remove")))
        #expect(literal.handler == "literal")
        #expect(literal.parameters == ["app_id": "a"])

        let parameter = try #require(found(router.match(method: .post, path: "/v1/apps/a/live-activities/x1/remove")))
        #expect(parameter.handler == "param")
        #expect(parameter.parameters == ["app_id": "a", "activity_id": "x1"])

        // The literal branch has no `end`, so the parameter branch still gets its chance.
        let fallback = try #require(found(router.match(method: .post, path: "/v1/apps/a/live-activities/push-to-start/end")))
        #expect(fallback.handler == "end")
        #expect(fallback.parameters["activity_id"] == "push-to-start")
    }

    @Test func wrongMethodListsAllowedMethods() {
        var router = Router<String>()
        router.add(.get, "/v1/apps/{app_id}", "get")
        router.add(.delete, "/v1/apps/{app_id}", "delete")
        guard case let .methodNotAllowed(template, allowed) = router.match(method: .post, path: "/v1/apps/x") else {
            Issue.record("expected 405")
            return
        }
        #expect(template == "/v1/apps/{app_id}")
        #expect(allowed == [.get, .delete])
        // HEAD is not GET.
        guard case .methodNotAllowed = router.match(method: .head, path: "/v1/apps/x") else {
            Issue.record("HEAD matched GET")
            return
        }
    }

    @Test(arguments: ["/nope", "/health/", "/v1/apps//x", "/v1/apps", "/v1/apps/a/b", "health", ""])
    func unknownPathsAreNotFound(path: String) {
        var router = Router<String>()
        router.add(.get, "/health", "health")
        router.add(.get, "/v1/apps/{app_id}/x", "x")
        guard case .notFound = router.match(method: .get, path: path) else {
            Issue.record("\(path) should be not found")
            return
        }
    }

    @Test func rootPath() throws {
        var router = Router<String>()
        router.add(.get, "/", "root")
        #expect(try #require(found(router.match(method: .get, path: "/"))).handler == "root")
    }

    @Test func parametersArePercentDecoded() throws {
        var router = Router<String>()
        router.add(.get, "/v1/apps/{app_id}/tokens/{token}", "token")
        let match = try #require(found(router.match(method: .get, path: "/v1/apps/my%20app/tokens/a%2Fb%zz")))
        #expect(match.parameters == ["app_id": "my app", "token": "a/b%zz"])
    }

    @Test func routesKeepRegistrationOrder() {
        var router = Router<String>()
        router.add(.get, "/health", "1")
        router.add(.post, "/v1/apps", "2")
        router.add(.get, "/v1/apps", "3")
        router.add(.get, "/health", "replaced")
        #expect(router.routes.map { "\($0.method) \($0.template)" } == ["GET /health", "POST /v1/apps", "GET /v1/apps"])
        guard case .found("replaced", _, _) = router.match(method: .get, path: "/health") else {
            Issue.record("re-registration should replace the handler")
            return
        }
    }

    @Test func copiesAreIndependent() {
        var first = Router<String>()
        first.add(.get, "/a", "a")
        var second = first
        second.add(.get, "/b", "b")
        guard case .notFound = first.match(method: .get, path: "/b") else {
            Issue.record("mutating a copy changed the original")
            return
        }
    }
}
