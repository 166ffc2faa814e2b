import Foundation
import HTTPServer
import OpenPushCore
import OpenPushDelivery

/// OneSignal's `get_segment` and `update_segment` on `/apps/{app_id}/segments/{segment_id}`.
extension SegmentsRoutes {
    static let maximumDescriptionLength = 1_000

    /// `GetSegmentSuccessResponse`: how many devices the segment reaches now (as a send to it
    /// would count them) and its definition. A built-in segment is `source: "default"` with no
    /// filters (its rule is not a filter list); a saved one `custom`, with its filters as saved.
    @Sendable static func detail(_ context: RouteContext) async throws -> HTTPResponse {
        let principal = try await Authentication.requireRESTKey(appID: context.pathParameter("app_id"), context)
        let app = principal.app
        let id = context.pathParameter("segment_id")
        guard let (segment, reached) = try await SegmentService.detail(id: id, principal: principal, now: context.services.now(),
                                                                       database: context.services.database)
        else { throw APIError.notFound("segment '\(id)' not found") }
        var payload: JSONObject
        switch segment {
        case .builtIn(let builtIn):
            payload = ["id": .string(id), "name": .string(builtIn.name), "created_at": .int(Int64(app.createdAt)),
                       "source": "default", "filters": []]
        case .saved(let record):
            payload = ["id": .string(id), "name": .string(record.name), "created_at": .int(Int64(record.createdAt)),
                       "source": "custom", "filters": record.filters]
            if let description = record.description { payload["description"] = .string(description) }
        }
        return .json(["subscriber_count": .int(reached), "payload": .object(payload)])
    }

    /// `UpdateSegmentRequest`: `name`, `filters` and `description`, each optional (at least one),
    /// validated as a create validates them. Answers `{"success": true, "id"}`.
    @Sendable static func update(_ context: RouteContext) async throws -> HTTPResponse {
        let principal = try await Authentication.requireRESTKey(appID: context.pathParameter("app_id"), context)
        try TenantAccess.requireAppKey(principal, "change segments")
        let app = principal.app
        let id = context.pathParameter("segment_id")
        if let builtIn = BuiltInSegment(id: id, appID: app.id) {
            throw APIError.badRequest("the built-in segment '\(builtIn.name)' cannot be changed")
        }
        let object = try context.jsonObject()
        var reader = FieldReader(object)
        let name = reader.string("name", required: object["name"] != nil, maxLength: maximumNameLength)
        _ = reader.filters("filters", required: object["filters"] != nil)
        let description = reader.string("description", maxLength: maximumDescriptionLength)
        reader.rejectUnknownFields()
        if reader.problems.isEmpty, name == nil, object["filters"] == nil, description == nil {
            reader.problem("give at least one of name, filters, description")
        }
        try reader.finish()
        let taken = APIError(status: 409, "a segment named '\(name ?? "")' already exists")
        if let name, BuiltInSegment(named: name) != nil { throw taken }
        let change = SegmentStore.Change(name: name, filters: object["filters"], description: description)
        switch try await SegmentStore.update(id: id, appID: app.id, change, now: context.services.now(),
                                             in: context.services.database) {
        case .updated: return .json(["success": true, "id": .string(id)])
        case .notFound: throw APIError.notFound("segment '\(id)' not found")
        case .nameTaken: throw taken
        }
    }
}
