import Foundation
import HTTPServer
import OpenPushCore
import OpenPushDelivery

/// Saved segments of an app (REST key), shaped like OneSignal's: create, list, read, change,
/// delete. The built-in segments (`BuiltInSegment`) are listed first and can be neither created,
/// changed nor deleted.
enum SegmentsRoutes {
    static let maximumNameLength = 128
    static let defaultLimit = 300

    static func register(on router: inout Router<RouteHandler>) {
        router.add(.post, "/apps/{app_id}/segments", create)
        router.add(.get, "/apps/{app_id}/segments", list)
        router.add(.delete, "/apps/{app_id}/segments/{segment_id}", delete)
        router.add(.get, "/apps/{app_id}/segments/{segment_id}", detail)
        router.add(.patch, "/apps/{app_id}/segments/{segment_id}", update)
    }

    @Sendable static func create(_ context: RouteContext) async throws -> HTTPResponse {
        let principal = try await Authentication.requireRESTKey(appID: context.pathParameter("app_id"), context)
        try TenantAccess.requireAppKey(principal, "create segments")
        let object = try context.jsonObject()
        var reader = FieldReader(object)
        let name = reader.string("name", required: true, maxLength: maximumNameLength)
        let filters = reader.filters("filters", required: true)
        reader.rejectUnknownFields()
        try reader.finish()
        guard let name, filters != nil, let rawFilters = object["filters"] else {
            throw InvariantViolation("FieldReader passed a body without name or filters")
        }
        let taken = APIError(status: 409, "a segment named '\(name)' already exists")
        guard BuiltInSegment(named: name) == nil else { throw taken }
        guard let segment = try await SegmentStore.create(appID: principal.app.id, name: name, filters: rawFilters,
                                                          now: context.services.now(), in: context.services.database)
        else { throw taken }
        return .json(["success": true, "id": .string(segment.id)], status: 201)
    }

    /// `limit` (1–300, default 300) and `offset` page through the built-in segments, then the
    /// saved ones oldest first; `total_count` counts them all.
    @Sendable static func list(_ context: RouteContext) async throws -> HTTPResponse {
        let principal = try await Authentication.requireRESTKey(appID: context.pathParameter("app_id"), context)
        let app = principal.app
        let (limit, offset) = try pageParameters(context.request.query)
        // The built-in segments take the first positions; saved segments follow them.
        let builtIns = BuiltInSegment.allCases.dropFirst(offset).prefix(limit)
        let (total, saved) = try await SegmentStore.page(appID: app.id, limit: limit - builtIns.count,
                                                         offset: max(0, offset - BuiltInSegment.allCases.count),
                                                         in: context.services.database)
        var segments: [JSONValue] = builtIns.map { json($0, app: app) }
        // A shared demo tenant uses the app's segments but cannot change them.
        segments += saved.map { json($0, readOnly: principal.tenantID != nil) }
        return .json([
            "total_count": .int(Int64(total + BuiltInSegment.allCases.count)),
            "offset": .int(Int64(offset)),
            "limit": .int(Int64(limit)),
            "segments": .array(segments),
        ])
    }

    @Sendable static func delete(_ context: RouteContext) async throws -> HTTPResponse {
        let principal = try await Authentication.requireRESTKey(appID: context.pathParameter("app_id"), context)
        try TenantAccess.requireAppKey(principal, "delete segments")
        let app = principal.app
        let id = context.pathParameter("segment_id")
        if let builtIn = BuiltInSegment(id: id, appID: app.id) {
            throw APIError.badRequest("the built-in segment '\(builtIn.name)' cannot be deleted")
        }
        guard try await SegmentStore.delete(id: id, appID: app.id, in: context.services.database) else {
            throw APIError.notFound("segment '\(id)' not found")
        }
        return .json(["success": true])
    }

    static func pageParameters(_ query: [String: String]) throws(APIError) -> (limit: Int, offset: Int) {
        var problems: [String] = []
        var limit = defaultLimit
        var offset = 0
        if let text = query["limit"] {
            if let value = Int(text), (1...defaultLimit).contains(value) { limit = value } else {
                problems.append("limit must be an integer from 1 to \(defaultLimit)")
            }
        }
        if let text = query["offset"] {
            if let value = Int(text), (0...Int(Int32.max)).contains(value) { offset = value } else {
                problems.append("offset must be an integer from 0 to \(Int32.max)")
            }
        }
        if !problems.isEmpty { throw APIError(status: 400, messages: problems) }
        return (limit, offset)
    }

    /// A built-in segment exists since its app does.
    static func json(_ builtIn: BuiltInSegment, app: AppRecord) -> JSONValue {
        segment(id: builtIn.id(appID: app.id), name: builtIn.name, appID: app.id, createdAt: app.createdAt,
                updatedAt: app.createdAt, readOnly: true, builtIn: true)
    }

    static func json(_ record: SegmentRecord, readOnly: Bool = false) -> JSONValue {
        segment(id: record.id, name: record.name, appID: record.appID, createdAt: record.createdAt,
                updatedAt: record.updatedAt, readOnly: readOnly, builtIn: false)
    }

    /// `updated_at` is the last `PATCH`, or `created_at` for a segment never changed.
    static func segment(id: String, name: String, appID: String, createdAt: Double, updatedAt: Double, readOnly: Bool,
                        builtIn: Bool) -> JSONValue {
        func iso(_ seconds: Double) -> JSONValue { .string(Date(timeIntervalSince1970: seconds).formatted(.iso8601)) }
        return [
            "id": .string(id), "name": .string(name), "created_at": iso(createdAt), "updated_at": iso(updatedAt),
            "app_id": .string(appID), "read_only": .bool(readOnly), "is_active": true, "built_in": .bool(builtIn),
        ]
    }
}
