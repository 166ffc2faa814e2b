/// A change by id that moves a device to a new push token: OneSignal's `update_subscription`
/// with a `token` that is not the device's own. The token is checked for the device's push
/// service as a registration's is; a browser's new endpoint must come with its new keys
/// (`web_p256`, `web_auth`), since a browser makes both together.
package struct SubscriptionTokenChange: Sendable, Equatable {
    /// In its stored form (`DeviceToken.normalized`).
    package var token: String
    /// A browser's keys and push service for the new endpoint; nil for other devices.
    package var web: WebPushSubscriptionKeys?

    /// The change the sent fields ask of a device holding `stored` on `service` (`browser`: the
    /// device's browser, for an endpoint OpenPush cannot place); nil when no token was sent or it
    /// is the device's own. Problems name the fields as OneSignal's object holds them.
    package static func read(_ fields: OneSignalSubscriptionFields, stored: String, service: PushService,
                             browser: WebPushBrowser?, rules: WebPushSubscriptionRules) throws(InvalidInput) -> Self? {
        guard let sent = fields.token, !DeviceToken.names(sent, stored: stored, service: service) else { return nil }
        var sentFields: JSONObject = ["token": .string(sent)]
        for (name, text) in fields.sentWebKeys { sentFields[name] = .string(text) }
        var reader = FieldReader(["subscription": .object(sentFields)])
        let change = reader.nestedObject("subscription") { fields -> Self? in
            switch service {
            case .webPush:
                let endpoint = fields.webPushEndpoint("token", required: true, rules: rules)
                let keys = fields.webPushKeys(endpoint: endpoint, rules: rules, sent: browser)
                guard let endpoint, let keys else { return nil }
                return Self(token: endpoint, web: keys)
            case .apns, .fcm:
                return fields.deviceToken("token", required: true, service: service).map { Self(token: $0, web: nil) }
            }
        }
        try reader.finish()
        return change ?? nil
    }
}
