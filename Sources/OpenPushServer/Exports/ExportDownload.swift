import HTTPServer
import OpenPushCore
import OpenPushDelivery

/// `GET /apps/{app_id}/exports/{export_id}.csv.gz`: an export's file, with the app's REST key
/// (a shared demo tenant's key reads only the tenant's exports). `404` while it is produced,
/// after it failed, and once its 3 days are over.
///
/// The file is streamed: each stored chunk is read from PostgreSQL only when the client has taken
/// the previous one, so a download holds one chunk (256 KiB) however large the file and however
/// slow the client; `Content-Length` is the stored `byte_count`.
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
        let chunks = export.chunkCount
        let stream = HTTPBodyStream(length: export.byteCount.map { UInt64($0) }) { position in
            // A file pruned or replaced meanwhile throws: the connection ends short of its length.
            position < chunks ? try await ExportStore.chunk(exportID: id, position: position, in: database) : nil
        }
        var response = HTTPResponse(status: 200, stream: stream)
        response.headers.add(name: "Content-Type", value: "application/gzip")
        response.headers.add(name: "Content-Disposition",
                             value: "attachment; filename=\"\(export.kind.fileStem)-\(id)\(ExportRoutes.fileSuffix)\"")
        return response
    }
}
