import HTTPServer
import OpenPushCore
import OpenPushDelivery
import OpenPushServer
import OpenPushTestSupport
import Postgres

/// Routes that exist only in tests, one per family, to exercise what every real route relies
/// on: JSON bodies, thrown API errors, and database access.
enum TestRoutes {
    static let register: @Sendable (inout Router<RouteHandler>) -> Void = { router in
        for prefix in ["/v1/apps/{app_id}/test", "/apps/{app_id}/test"] {
            router.add(.post, prefix + "/echo") { context in
                let object = try context.jsonObject()
                return .json(["app": .string(context.pathParameter("app_id")), "echo": .object(object)])
            }
            router.add(.get, prefix + "/database") { context in
                let rows = try await context.services.database.query("SELECT \(41) + 1 AS answer")
                return .json(["answer": .int(Int64(try rows[0].decode("answer", as: Int.self)))])
            }
            router.add(.get, prefix + "/params/{value}") { context in
                let query = JSONObject(context.request.query.map { ($0.key, JSONValue.string($0.value)) })
                return .json(["value": .string(context.pathParameter("value")), "query": .object(query)])
            }
            router.add(.get, prefix + "/fail") { _ in
                throw APIError(status: 409, messages: ["first problem", "second problem"])
            }
            router.add(.get, prefix + "/invalid") { _ in
                throw InvalidInput(["first field is wrong", "second field is wrong"])
            }
            router.add(.get, prefix + "/crash") { _ in
                struct Unexpected: Error {}
                throw Unexpected()
            }
        }
    }
}
