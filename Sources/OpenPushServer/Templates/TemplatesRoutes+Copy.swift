import HTTPServer
import OpenPushCore
import OpenPushDelivery

/// OneSignal's `copy_template_to_app` (organization key): `POST /templates/{template_id}/copy_to_app
/// ?app_id=<source>` with `{"target_app_id": …}` answers the new template of the target app
/// (`TemplateResource`). A template the source app does not have, or a target app that does not
/// exist, is `404`; the source app's own templates are untouched.
extension TemplatesRoutes {
    static func registerCopy(on router: inout Router<RouteHandler>) {
        router.add(.post, "/templates/{template_id}/copy_to_app", copy)
    }

    @Sendable static func copy(_ context: RouteContext) async throws -> HTTPResponse {
        try Authentication.requireOrganization(context)
        let sourceAppID = try NotificationRoutes.appIDParameter(context)
        var reader = FieldReader(try context.jsonObject())
        let target = reader.string("target_app_id", required: true, maxLength: AppFields.textMaxLength)
        reader.rejectUnknownFields()
        try reader.finish()
        guard let target else { throw InvariantViolation("FieldReader passed a copy without target_app_id") }
        let database = context.services.database
        guard try await AppStore.find(sourceAppID, in: database) != nil else { throw Authentication.unknownApp(sourceAppID) }
        let id = context.pathParameter("template_id")
        do {
            let record = try await TemplateStore.copy(id: id, from: sourceAppID, to: target, now: context.services.now(),
                                                      in: database)
            return .json(record.resource)
        } catch let refusal as TemplateCopyRefusal {
            switch refusal {
            case .unknownTarget(let appID): throw Authentication.unknownApp(appID)
            case .unknownTemplate(let templateID): throw notFound(templateID)
            }
        }
    }
}
