/// The body of `POST /apps/{app_id}/users/by/{alias_label}/{alias_id}/subscriptions`, OneSignal's
/// `{"subscription": {"type", "token", …}}`: a push type OpenPush holds and a device token are required.
package struct SubscriptionCreation: Sendable, Equatable {
    package var type: OneSignalSubscriptionType
    /// Lower-cased hex for an Apple device; an Android device's FCM token as sent.
    package var token: String
    package var fields: OneSignalSubscriptionFields

    package init(type: OneSignalSubscriptionType, token: String, fields: OneSignalSubscriptionFields = .init()) {
        self.type = type
        self.token = token
        self.fields = fields
    }

    /// A web `type` is checked against `web` (without it, its keys cannot be taken and it is refused).
    package init(body: JSONObject, web rules: WebPushSubscriptionRules? = nil) throws(InvalidInput) {
        var reader = FieldReader(body)
        let fields = reader.nestedObject("subscription", required: true) { nested in
            let fields = OneSignalSubscriptionFields.read(&nested, typeRequired: true, web: rules)
            nested.rejectUnknownFields()
            return fields
        }
        reader.rejectUnknownFields()
        try reader.finish()
        guard let fields, let type = fields.type, let token = fields.token else {
            throw InvalidInput("subscription.type and subscription.token are required")
        }
        if type.service == .webPush, fields.web == nil {
            throw InvalidInput("subscription.type \(type.rawValue) is not accepted here")
        }
        if fields.id != nil {
            throw InvalidInput("subscription.id is assigned by OpenPush and cannot be set")
        }
        self.init(type: type, token: token, fields: fields)
    }
}
