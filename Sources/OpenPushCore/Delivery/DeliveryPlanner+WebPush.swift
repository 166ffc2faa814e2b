/// A browser recipient's push: the same decisions as for an Apple device (expiry, quiet hours,
/// muted threads, texts, privacy), then a `WebPushRequest` whose plaintext the service worker
/// shows (`WebPushPayload`).
extension DeliveryPlanner {
    /// How long a web push of an app whose web push is paused waits before it is planned again;
    /// a `PUT /apps` that changes the VAPID key or subject brings such waits forward.
    package static let webPushPauseRecheckSeconds: Double = 60
    /// The `error_reason` of a web push whose plaintext is over `WebPushRequest.maxPlaintextBytes`.
    package static let webPushPayloadTooLarge = "WebPushPayloadTooLarge"
    /// The `error_reason` of a web push of an app with no VAPID subject (`web_push_subject`, else
    /// `OPENPUSH_WEB_PUSH_SUBJECT`): a send to browsers is refused for it, this is one queued before.
    package static let missingWebPushSubject = "MissingWebPushSubject"
    /// The `error_reason` of a web push of an app whose VAPID key could not be made.
    package static let missingVAPIDKey = "MissingVAPIDKey"
    /// The `error_reason` of a web push the push service refused for its VAPID signature (401/403).
    package static let vapidRefused = "WebPushVAPIDRefused"
    /// How many web pushes of one job, all refused for the VAPID signature, pause the app's web push.
    package static let vapidRefusalsToPause = 10

    /// Why the app sends no web push now, if it does not.
    static func webPushRefusal(_ app: DeliveryContext.App, now: Double) -> Refusal? {
        app.webPushPaused ? .deferred(until: now + webPushPauseRecheckSeconds) : nil
    }

    /// The browser push of one recipient whose texts were decided. An ids-only message carries
    /// only the `openpush` block and its privacy text as `body` when it has one: the service
    /// worker shows that or its own line, so it is never blank. The ttl is what remains of the
    /// message's (three days unless it gives one), counted from its send time.
    static func planWebPush(_ delivery: ClaimedDelivery, message: DeliveryContext.Message, send: NotificationSend,
                            decision: AlertPrivacy.Decision, subscription: DeliveryContext.Subscription,
                            key: PayloadCache.Key?, sendTime: Double, now: Double,
                            cache: inout PayloadCache) -> Result<Plan, Refusal> {
        let texts: AlertPrivacy.Texts
        switch decision {
        case .send(let chosen): texts = chosen
        case .blank:
            guard send.privacy == .idsOnly else { return .failure(.suppressed(.blank)) }
            texts = AlertPrivacy.Texts(shape: .idsOnly)
        }
        guard let keys = subscription.webKeys else { return .failure(.permanent("MissingContext")) }
        let total = send.ttl ?? WebPushRequest.defaultTTL
        let ttl: Int
        if total == 0 {
            ttl = 0
        } else {
            ttl = Int(sendTime.rounded(.down)) + total - Int(now.rounded(.down))
            guard ttl > 0 else { return .failure(.permanent("Expired")) }
        }
        let cacheKey = key ?? PayloadCache.Key(appID: delivery.appID, messageID: message.id, title: texts.title, body: texts.body,
                                               platform: subscription.platform, privacy: texts.shape)
        let payload: WebPushPayload
        if let cached = cache.webPayloads[cacheKey] {
            payload = cached
        } else {
            payload = webPushPayload(send, texts: texts, messageID: message.id)
            cache.webPayloads[cacheKey] = payload
        }
        let plaintext = payload.body(subscriptionID: subscription.id)
        guard plaintext.count <= WebPushRequest.maxPlaintextBytes else { return .failure(.permanent(webPushPayloadTooLarge)) }
        let request = WebPushRequest(endpoint: delivery.token, p256dh: keys.p256dh, auth: keys.auth, plaintext: plaintext, ttl: ttl,
                                     urgency: send.priority == 10 ? .high : .normal, topic: send.web.topic ?? send.collapseID)
        return .success(Plan(webPush: request))
    }

    /// The plaintext shared by the recipients alike: texts, the web fields and `data`; an
    /// ids-only push only its privacy text.
    package static func webPushPayload(_ send: NotificationSend, texts: AlertPrivacy.Texts, messageID: String) -> WebPushPayload {
        if texts.shape == .idsOnly { return WebPushPayload(body: texts.body, notificationID: messageID) }
        let web = send.web
        return WebPushPayload(title: texts.title, body: texts.body, icon: web.icon, image: web.image, badge: web.badge,
                              url: web.url, tag: web.topic ?? send.collapseID, data: send.data, notificationID: messageID)
    }
}

extension DeliveryPlanner.Plan {
    /// A browser plan's request.
    package var webPush: WebPushRequest? {
        if case .webPush(let request) = push { return request }
        return nil
    }
}

extension AlertPrivacy.Decision {
    /// The texts to send; nil when blank.
    var texts: AlertPrivacy.Texts? {
        if case .send(let texts) = self { return texts }
        return nil
    }
}
