import HTTPServer
import OpenPushCore
import OpenPushDelivery

/// `GET /apps/{app_id}/exports/{export_id}.csv.gz`: an export's file, with the app's REST key
/// (a shared demo tenant's key reads only the tenant's exports). `404` while it is produced,
/// after it failed, and once its 3 days are over.
///
/// The HTTP server (libmicrohttpd behind `HTTPServer`) answers from one buffer: it has no
/// streaming or callback response yet. The file is read chunk by chunk, one query each, so the
/// database never sends it whole, but the answer holds the compressed file once.
enum ExportDownload {
    @Sendable static func download(_ context: RouteContext) async throws -> HTTPResponse {
        let appID = context.pathParameter("app_id")
        let principal = try await Authentication.requireRESTKey(appID: appID, context)
        let name = context.pathParameter("file_name")
        let missing = APIError.notFound("export '\(name)' not found")
        guard name.hasSuffix(ExportRoutes.fileSuffix) else { throw missing }
        let id = String(name.dropLast(ExportRoutes.fileSuffix.count))
        let database = context.services.database
        guard let export = try await ExportStore.find(id: id, appID: appID, now: context.services.now(), in: database),
              export.tenantID == principal.tenantID
        else { throw missing }
        switch export.state {
        case .pending:
            throw APIError(status: 404, "export '\(name)' is not ready yet; try again shortly", headers: ["Retry-After": "2"])
        case .failed:
            throw APIError.notFound("export '\(name)' failed; request a new one")
        case .ready:
            break
        }
        var body: [UInt8] = []
        body.reserveCapacity(Int(export.byteCount ?? 0))
        for position in 0..<export.chunkCount {
            body += try await ExportStore.chunk(exportID: id, position: position, in: database)
        }
        var response = HTTPResponse(status: 200, body: body)
        response.headers.add(name: "Content-Type", value: "application/gzip")
        response.headers.add(name: "Content-Disposition",
                             value: "attachment; filename=\"\(export.kind.fileStem)-\(id)\(ExportRoutes.fileSuffix)\"")
        return response
    }
}
