import OpenPushCore
import OpenPushDelivery
import Postgres

/// A send that reaches browsers needs a VAPID subject (Apple's push service refuses a push
/// without one): the app's `web_push_subject`, else `OPENPUSH_WEB_PUSH_SUBJECT`. Checked when
/// the send is made, so nobody learns of it only from failed pushes.
extension NotificationStore {
    static let missingWebPushSubject = "this notification reaches web subscriptions, and web push needs a VAPID subject: "
        + "set the app's web_push_subject (PUT /apps/{app_id}) or OPENPUSH_WEB_PUSH_SUBJECT (a mailto: or https: URL)"

    static func checkWebPushSubject(_ send: NotificationSend, targeted: TargetedAudience, appID: String, defaultSubject: String?,
                      in connection: PostgresConnection) throws {
        guard defaultSubject == nil, !send.excludedServices.contains(.webPush) else { return }
        let subject: String? = try connection.query("SELECT web_push_subject FROM apps WHERE id = \(appID)").first?
            .decode("web_push_subject")
        guard subject == nil else { return }
        let webOnly = PushService.allCases.filter { $0 != .webPush }
        if try !NotificationAudience.isEmpty(targeted: targeted, appID: appID, kind: send.kind,
                                            excluding: send.excludedServices.union(webOnly), browsers: send.excludedBrowsers,
                                            in: connection) {
            throw APIError.badRequest(missingWebPushSubject)
        }
    }
}
