import OpenPushCore
import OpenPushDelivery
import Postgres

/// A send that reaches browsers must fit one browser push (`NotificationSend.webPushProblem`)
/// and needs a VAPID subject (Apple's push service refuses a push without one): the app's
/// `web_push_subject`, else `OPENPUSH_WEB_PUSH_SUBJECT`. Checked when the send is made, only
/// when its audience holds a browser, so nobody learns of it only from failed pushes and a send
/// to phones alone is never refused for it.
extension NotificationStore {
    static let missingWebPushSubject = "this notification reaches web subscriptions, and web push needs a VAPID subject: "
        + "set the app's web_push_subject (PUT /apps/{app_id}) or OPENPUSH_WEB_PUSH_SUBJECT (a mailto: or https: URL)"

    static func checkWebPush(_ send: NotificationSend, targeted: TargetedAudience, appID: String, defaultSubject: String?,
                             in connection: PostgresConnection) throws {
        guard send.mayReachBrowsers else { return }
        var problem = send.webPushProblem
        if problem == nil, defaultSubject == nil {
            let subject: String? = try connection.query("SELECT web_push_subject FROM apps WHERE id = \(appID)").first?
                .decode("web_push_subject")
            if subject == nil { problem = missingWebPushSubject }
        }
        guard let problem else { return }
        let notWeb = PushService.allCases.filter { $0 != .webPush }
        if try !NotificationAudience.isEmpty(targeted: targeted, appID: appID, kind: send.kind,
                                            excluding: send.excludedServices.union(notWeb), browsers: send.excludedBrowsers,
                                            in: connection) {
            throw APIError.badRequest(problem)
        }
    }
}
