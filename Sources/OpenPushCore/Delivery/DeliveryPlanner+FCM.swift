/// An Android recipient's push: the same decisions as for an Apple device (expiry, quiet hours,
/// muted threads, texts, privacy), then an FCM message instead of an APNs request.
extension DeliveryPlanner {
    /// The `error_reason` of an Android recipient of a push only Apple devices have (a widget
    /// reload, a Live Activity): it is not sent, and not tried again.
    package static let appleOnly = "AppleOnlyPush"
    /// The `error_reason` of an Android recipient of an app that holds no FCM service account.
    package static let missingFCMCredentials = "MissingFCMCredentials"
    /// How long an Android push of an app whose FCM sending is paused waits before it is planned
    /// again; a `PUT /apps` that lifts the pause brings such waits forward.
    package static let fcmPauseRecheckSeconds: Double = 60

    /// Why the app sends no Android push now, if it does not.
    static func fcmRefusal(_ app: DeliveryContext.App, now: Double) -> Refusal? {
        guard app.fcmServiceAccount != nil else { return .permanent(missingFCMCredentials) }
        return app.fcmPaused ? .deferred(until: now + fcmPauseRecheckSeconds) : nil
    }

    /// The FCM message for one device. Where an Apple device in its quiet hours gets a passive
    /// alert without sound (`silenced`), an Android device gets `NORMAL` priority and no
    /// `android.notification.sound`. The ttl is what remains of the message's, as APNs'
    /// expiration is absolute. FCM has no subtitle: it is not sent.
    static func fcmMessage(_ delivery: ClaimedDelivery, message: DeliveryContext.Message, send: NotificationSend,
                           silenced: Bool, texts: AlertPrivacy.Texts, subscription: DeliveryContext.Subscription,
                           expiration: Int, now: Double) -> FCMMessage {
        var fields = send.androidFields
        if silenced {
            fields.priority = 5
            fields.sound = nil
        }
        fields.ttl = expiration == 0 ? 0 : max(1, expiration - Int(now.rounded(.down)))
        return FCMMessage(token: delivery.token, title: texts.title, body: texts.body, fields: fields,
                          notificationID: message.id, subscriptionID: subscription.id, content: FCMMessageContent(texts.shape))
    }
}

extension DeliveryPlanner.Plan {
    /// An Apple plan's request. Only for callers that planned Apple recipients (tests).
    package var request: APNSRequest {
        guard case .apns(let request, _) = push else { preconditionFailure("an FCM plan has no APNs request") }
        return request
    }

    /// An Apple plan's environment; `.production` for FCM, which has one endpoint.
    package var environment: DeviceEnvironment {
        if case .apns(_, let environment) = push { return environment }
        return .production
    }

    /// An Android plan's message.
    package var fcm: FCMMessage? {
        if case .fcm(let message, _) = push { return message }
        return nil
    }
}
