/// `POST /notifications/{id}/history`'s body (OneSignal's `GetNotificationHistoryRequestBody`).
package struct NotificationHistoryRequest: Sendable, Equatable {
    package enum Events: String, Sendable, CaseIterable {
        case sent, clicked

        package var exportKind: ExportKind {
            switch self {
            case .sent: .notificationSent
            case .clicked: .notificationClicked
            }
        }
    }

    package var events: Events
    package var appID: String
    /// OneSignal mails the file there; OpenPush sends no mail and only accepts it.
    package var email: String?

    package static func parse(_ object: JSONObject) throws(InvalidInput) -> NotificationHistoryRequest {
        var reader = FieldReader(object)
        let events = reader.choice("events", among: Events.allCases, required: true)
        let email = reader.string("email", maxLength: 254)
        let appID = reader.string("app_id", required: true, maxLength: 128)
        reader.rejectUnknownFields()
        try reader.finish()
        guard let events, let appID else { throw InvalidInput("events and app_id are required") }
        return NotificationHistoryRequest(events: events, appID: appID, email: email)
    }
}
