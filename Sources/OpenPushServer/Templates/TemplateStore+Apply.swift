import OpenPushCore
import OpenPushDelivery
import Postgres

extension TemplateStore {
    /// A `POST /notifications` body with its `template_id` applied (`TemplateMerge`), or the body
    /// itself when it names none. An id the app has no template for (another app's included) is
    /// a `400` naming it.
    static func applied(to body: JSONObject, appID: String, in database: PostgresPool) async throws -> JSONObject {
        guard let id = try TemplateMerge.templateID(in: body).get() else { return body }
        let template = try await database.withConnection { try find(id: id, appID: appID, in: $0) }
        guard let template else { throw TemplateMerge.unknown(id) }
        return TemplateMerge.merged(body, name: template.name, content: template.content)
    }
}
