import HTTPServer
import OpenPushCore
import OpenPushDelivery

/// OneSignal's export methods: `POST /players/csv_export` (subscriptions), `POST
/// /notifications/{id}/history` (sent records or taps) and `POST /notifications/{id}/export_events`
/// (both). Each records a job and answers at once with the file's URL; the engine's producer
/// writes the file (`ExportProducer`), and `GET /apps/{app_id}/exports/{file_name}` serves it
/// with the app's REST key: `404` until it is ready, for 3 days.
enum ExportRoutes {
    static func register(on router: inout Router<RouteHandler>) {
        router.add(.post, "/players/csv_export", exportSubscriptions)
        router.add(.post, "/notifications/{notification_id}/history", history)
        router.add(.post, "/notifications/{notification_id}/export_events", exportEvents)
        router.add(.get, "/apps/{app_id}/exports/{file_name}", ExportDownload.download)
    }

    static let fileSuffix = ".csv.gz"

    @Sendable static func exportSubscriptions(_ context: RouteContext) async throws -> HTTPResponse {
        guard let appID = context.request.query["app_id"], !appID.isEmpty else {
            // No key at all is the `401` every keyed route answers first.
            if Authentication.presentedKeys(context).isEmpty { throw APIError(status: 401, Authentication.badRESTKey) }
            throw APIError.badRequest("app_id is required")
        }
        let principal = try await Authentication.requireRESTKey(appID: appID, context)
        let body = context.request.body.allSatisfy { $0 == 0x20 || $0 == 0x0a || $0 == 0x0d || $0 == 0x09 }
            ? JSONObject() : try context.jsonObject()
        let options = try SubscriptionExportOptions.parse(body)
        let id = try await ExportStore.create(appID: appID, tenantID: principal.tenantID, kind: .subscriptions, messageID: nil,
                                              segmentName: options.segmentName,
                                              options: options.stored, now: context.services.now(), in: context.services.database)
        let ignored = options.ignoredExtras.isEmpty ? [:] : ["OpenPush-Ignored-Fields": options.ignoredExtras.joined(separator: ", ")]
        return .json(["csv_file_url": .string(fileURL(context, appID: appID, exportID: id))], headers: ignored)
    }

    @Sendable static func history(_ context: RouteContext) async throws -> HTTPResponse {
        let body = try context.jsonObject()
        // The key first: a caller without one learns nothing about the body's problems.
        let appID = body["app_id"]?.stringValue ?? ""
        guard !appID.isEmpty else {
            if Authentication.presentedKeys(context).isEmpty { throw APIError(status: 401, Authentication.badRESTKey) }
            throw APIError.badRequest("app_id is required")
        }
        let principal = try await Authentication.requireRESTKey(appID: appID, context)
        let request = try NotificationHistoryRequest.parse(body)
        let id = try await ExportStore.create(appID: appID, tenantID: principal.tenantID, kind: request.events.exportKind,
                                              messageID: context.pathParameter("notification_id"), options: [:],
                                              now: context.services.now(), in: context.services.database)
        return .json(["success": true, "destination_url": .string(fileURL(context, appID: appID, exportID: id))])
    }

    @Sendable static func exportEvents(_ context: RouteContext) async throws -> HTTPResponse {
        let principal = try await NotificationViewRoutes.reader(context)
        let appID = principal.app.id
        let id = try await ExportStore.create(appID: appID, tenantID: principal.tenantID, kind: .notificationEvents,
                                              messageID: context.pathParameter("notification_id"), options: [:],
                                              now: context.services.now(), in: context.services.database)
        return .json(["csv_file_url": .string(fileURL(context, appID: appID, exportID: id))])
    }

    /// The file's URL on this server, as the caller reached it: its `Host` (and
    /// `X-Forwarded-Proto` from a TLS proxy) are only echoed back to the same caller, never
    /// used for anything else. Without a usable `Host` the URL is relative.
    static func fileURL(_ context: RouteContext, appID: String, exportID: String) -> String {
        // App ids are generated (`app_` and base32): nothing to escape.
        let path = "/apps/\(appID)/exports/\(exportID)\(fileSuffix)"
        guard let host = context.request.headers["Host"], !host.isEmpty, host.count <= 255,
              host.unicodeScalars.allSatisfy({ $0.isASCII && (Character($0).isLetter || Character($0).isNumber || ".-:[]".unicodeScalars.contains($0)) })
        else { return path }
        let scheme = context.request.headers["X-Forwarded-Proto"]?.lowercased() == "https" ? "https" : "http"
        return "\(scheme)://\(host)\(path)"
    }
}
