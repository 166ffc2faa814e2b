/// Turns one claimed delivery and its context into the push to send, or into the reason it
/// will not be sent. Pure: time and the previous timestamps are passed in.
package enum DeliveryPlanner {
    /// A Live Activity push not sent within a day is worthless: APNs would drop it too.
    package static let maximumAge: Double = 24 * 3600
    /// How long a `ttl: 0` notification ("now or never") may wait in a backlog or behind a
    /// paused app before it is no longer "now".
    package static let nowOrNeverGrace: Double = 5
    /// The `error_reason` of a recipient whose texts exhausted their Liquid budget
    /// (`LiquidBudget`): it is not sent to, and not tried again.
    package static let templateBudgetExceeded = "TemplateBudgetExceeded"

    package struct Plan: Sendable {
        /// The push in its service's terms.
        package enum Push: Sendable {
            /// To an Apple device, at the APNs endpoint of its environment.
            case apns(APNSRequest, DeviceEnvironment)
            /// To an Android device, through FCM HTTP v1: the message and its request body.
            case fcm(FCMMessage, body: [UInt8])
            /// To a browser, at its subscription's endpoint: encrypted and signed by the transport.
            case webPush(WebPushRequest)
        }

        package var push: Push
        /// The `aps.timestamp` sent to this activity row, to remember.
        package var activityTimestamp: (activityID: String, timestamp: Int)?

        init(request: APNSRequest, environment: DeviceEnvironment, activityTimestamp: (activityID: String, timestamp: Int)?) {
            push = .apns(request, environment)
            self.activityTimestamp = activityTimestamp
        }

        init(fcm message: FCMMessage, body: [UInt8]) {
            push = .fcm(message, body: body)
        }

        init(webPush request: WebPushRequest) {
            push = .webPush(request)
        }
    }

    package enum Refusal: Error, Sendable, Equatable {
        /// Not sent, and never will be: the row ends in `error` with this reason.
        case permanent(String)
        /// The app has no usable APNs credentials: pause it.
        case credentials(String)
        /// The app's FCM service account does not open: pause the app's FCM sending (only).
        case fcmCredentials(String)
        /// The app's VAPID key does not open: pause the app's web push (only).
        case webPushCredentials(String)
        /// The message was cancelled before this push went out.
        case cancelled
        /// A newer push to this Live Activity was accepted already: this one would roll it back.
        case superseded
        /// A delivery policy decided against sending it; `carriedBy` names the message whose push
        /// carried its content instead (a coalesced update), when one did.
        case suppressed(SuppressionReason, carriedBy: String? = nil)
        /// Not now: it waits, on the same attempt, until `until` (unix seconds) and is planned again.
        case deferred(until: Double)
    }

    /// Notification payloads already built in this batch: most recipients of a fan-out share
    /// one (same texts, badge and platform), so it is built once and only its `apns-id` differs.
    /// Keyed by app and message too, like every per-batch map.
    package struct PayloadCache: Sendable {
        struct Key: Hashable {
            var appID: String
            var messageID: String
            var title: String?
            var subtitle: String? = nil
            var body: String?
            var badge: Int? = nil
            var platform: String
            /// How the texts were chosen (`AlertPrivacy`): the same body can be a device's own
            /// text or its privacy text, and the payloads differ.
            var privacy: AlertPrivacy.Shape = .full
            /// Silenced for a device in its quiet hours (`DeviceAttentionPolicy`).
            var silenced: Bool = false

            // Not the app and message ids: one job's recipients share them, so hashing them is
            // work per recipient that tells no keys apart. Equality still compares them.
            func hash(into hasher: inout Hasher) {
                hasher.combine(title)
                hasher.combine(subtitle)
                hasher.combine(body)
                hasher.combine(badge)
                hasher.combine(platform)
                hasher.combine(privacy)
                hasher.combine(silenced)
            }
        }

        /// What else a Live Activity payload depends on: the activity's own stale date and the
        /// push's timestamp (the same for every recipient of a message queued after timestamps
        /// were fixed).
        struct ActivityKey: Hashable {
            var texts: Key
            var registeredStaleDate: Double?
            var timestamp: Int
        }

        /// What a recipient's texts depend on when they read no more of it than some tags
        /// (`Message.liquidTagNames`): its language, privacy choice and those tags' values.
        struct TextsKey: Hashable {
            var appID: String
            var messageID: String
            var language: String?
            var hideDetails: Bool
            /// The values of the message's `liquidTagNames`, in their order.
            var tags: [String?] = []

            // As `Key`: the app and message ids are compared, not hashed.
            func hash(into hasher: inout Hasher) {
                hasher.combine(language)
                hasher.combine(hideDetails)
                hasher.combine(tags)
            }
        }

        var built: [Key: Result<APNSRequest, Refusal>] = [:]
        /// Rendering and trimming the texts per recipient was a tenth of planning a fan-out. A
        /// rendering over budget is kept too: recipients alike do not exhaust it again.
        var texts: [TextsKey: Result<AlertPrivacy.Decision, LiquidBudget.Exceeded>] = [:]
        /// A Live Activity's texts (nil: blank), shared the same way.
        var activityTexts: [TextsKey: Result<AlertPrivacy.Texts?, LiquidBudget.Exceeded>] = [:]
        var builtActivities: [ActivityKey: Result<APNSRequest, Refusal>] = [:]
        /// Android bodies, by what they depend on besides the device: the texts' key and the
        /// remaining ttl (whole seconds, so it changes at most once a second).
        var fcmBodies: [FCMKey: FCMBodyTemplate] = [:]
        /// Browser plaintexts, by the texts' key: the rest of one is the message's.
        var webPayloads: [Key: WebPushPayload] = [:]

        struct FCMKey: Hashable {
            var texts: Key
            var ttl: Int?
        }

        package init() {}
    }

    /// `lastTimestamps`: the `aps.timestamp` given to activity rows earlier in the same batch.
    package static func plan(_ delivery: ClaimedDelivery, context: DeliveryContext, now: Double,
                            lastTimestamps: [String: Int] = [:]) -> Result<Plan, Refusal> {
        var cache = PayloadCache()
        return plan(delivery, context: context, now: now, lastTimestamps: lastTimestamps, cache: &cache)
    }

    package static func plan(_ delivery: ClaimedDelivery, context: DeliveryContext, now: Double,
                            lastTimestamps: [String: Int], cache: inout PayloadCache) -> Result<Plan, Refusal> {
        // Each looked up once: a few hashed lookups per recipient add up over a thousand.
        let message = context.message(for: delivery)
        let subscription = context.subscription(for: delivery)
        if let message, message.cancelled { return .failure(.cancelled) }
        // An Android device or a browser never holds an extra (Apple) token: counted with the
        // devices that hold none.
        if delivery.tokenKind.extraKind != nil, let subscription, subscription.service != .apns {
            return .failure(.suppressed(.noToken))
        }
        // Before `stopped`: an Android device or a browser has no widget or activity token to be missing.
        if let subscription, let message, subscription.service != .apns,
           message.notification?.kind.tokenKind != .device || delivery.tokenKind != .device {
            return .failure(.permanent(appleOnly))
        }
        if let stop = stopped(delivery, subscription: subscription, context: context) { return .failure(.permanent(stop)) }
        if let message, message.notification != nil {
            return planNotification(delivery, message: message, subscription: subscription, context: context, now: now,
                                    cache: &cache)
        }
        guard now - delivery.createdAt < maximumAge else { return .failure(.permanent("Expired")) }
        guard let message, let send = message.send, let app = context.app(for: delivery), let subscription
        else { return .failure(.permanent("MissingContext")) }
        guard let bundleID = app.bundleID, !bundleID.isEmpty else { return .failure(.credentials("MissingTopic")) }
        let activity = context.activity(for: delivery)
        let previous = activity.map { lastTimestamps[$0.id] ?? $0.lastPushTimestamp } ?? nil
        let timestamp: Int
        if let fixed = message.pushTimestamp {
            // Fixed at enqueue: an older push retried after a newer one was accepted must not
            // overwrite it on the device.
            if let previous, previous >= fixed { return .failure(.superseded) }
            timestamp = fixed
        } else {
            timestamp = LiveActivityPayload.nextTimestamp(now: now, previous: previous)
        }
        let shared = textsKey(message, app: app, subscription: subscription)
        let rendered: Result<AlertPrivacy.Texts?, LiquidBudget.Exceeded>
        if let shared, let known = cache.activityTexts[shared] {
            rendered = known
        } else {
            let liquid = message.rendersLiquid ? liquidContext(subscription, context: context) : [:]
            rendered = Result { () throws(LiquidBudget.Exceeded) in
                try liveActivityTexts(message, send: send, app: app, subscription: subscription, liquid: liquid)
            }
            if let shared { cache.activityTexts[shared] = rendered }
        }
        guard case .success(let known) = rendered else { return .failure(.permanent(templateBudgetExceeded)) }
        guard let texts = known else { return .failure(.suppressed(.blank)) }
        let key = PayloadCache.ActivityKey(
            texts: PayloadCache.Key(appID: app.id, messageID: message.id, title: texts.title, body: texts.body,
                                    platform: subscription.platform, privacy: texts.shape),
            registeredStaleDate: activity?.staleAt, timestamp: timestamp)
        let built: Result<APNSRequest, Refusal>
        if let cached = cache.builtActivities[key] {
            built = cached
        } else {
            let input = LiveActivityPushInput(
                event: send.event, messageID: message.id, activityID: send.activityID,
                activityType: message.activityType ?? "", attributes: send.attributes, contentState: send.contentState,
                title: key.texts.title, body: key.texts.body,
                sound: texts.shape == .blankFallback ? nil : send.sound, relevanceScore: send.relevanceScore, explicitPriority: send.priority,
                requestedStaleDate: send.staleDate, registeredStaleDate: key.registeredStaleDate,
                requestedDismissalDate: send.dismissalDate, autoEndMinutes: app.autoEndMinutes,
                bundleID: bundleID, watchBundleID: app.watchBundleID, platform: subscription.platform,
                apnsID: delivery.apnsID, onesignalAlias: app.onesignalAlias, now: now, timestamp: timestamp)
            built = LiveActivityPayload.build(input).mapError { .permanent($0.reason.rawValue) }
            cache.builtActivities[key] = built
        }
        return built.map { request in
            var request = request
            request.headers.apnsID = delivery.apnsID
            return Plan(request: request, environment: subscription.environment,
                        activityTimestamp: activity.map { ($0.id, timestamp) })
        }
    }

    /// An ordinary notification: alert, background or widget reload. It lives as long as its
    /// `ttl` says (APNs would drop it after that too), not the Live Activity day.
    static func planNotification(_ delivery: ClaimedDelivery, message: DeliveryContext.Message,
                                 subscription: DeliveryContext.Subscription?, context: DeliveryContext,
                                 now: Double, cache: inout PayloadCache) -> Result<Plan, Refusal> {
        guard let send = message.notification, let app = context.app(for: delivery), let subscription
        else { return .failure(.permanent("MissingContext")) }
        // Its token of the kind, read when the job runs (`DeliveryContext.withCurrentTokens`).
        if delivery.tokenKind.extraKind != nil, delivery.token.isEmpty { return .failure(.suppressed(.noToken)) }
        if StalenessGate.isStale(send, appDefault: app.staleAlertSeconds, now: now) { return .failure(.suppressed(.stale)) }
        // A per-device time or a throttle sends each job at its own due time, which its
        // `createdAt` holds (`ExpansionSchedule`): the ttl counts from there.
        let sendTime = send.schedule.isImmediate ? message.sendTime : max(message.sendTime, delivery.createdAt)
        let expiration = NotificationPayload.expiration(sendTime: sendTime, ttl: send.ttl, kind: send.kind)
        guard expiration == 0 || now < Double(expiration) else { return .failure(.permanent("Expired")) }
        // `ttl: 0` is now or never: one attempt, and only while it is still "now".
        if send.ttl == 0, delivery.attempts > 1 || now - sendTime > nowOrNeverGrace {
            return .failure(.permanent("Expired"))
        }
        if subscription.service == .fcm {
            if let refusal = fcmRefusal(app, now: now) { return .failure(refusal) }
        } else if subscription.service == .webPush {
            if let refusal = webPushRefusal(app, now: now) { return .failure(refusal) }
        } else if app.bundleID?.isEmpty ?? true {
            return .failure(.credentials("MissingTopic"))
        }
        let bundleID = app.bundleID ?? ""
        let attended: (send: NotificationSend, silenced: Bool)
        switch attend(send, delivery, context: context, now: now) {
        case .success(let value): attended = value
        case .failure(let refusal): return .failure(refusal)
        }
        let decision = notificationTexts(message, send: send, app: app, subscription: subscription, context: context,
                                         cache: &cache)
        guard case .success(let chosen) = decision else { return .failure(.permanent(templateBudgetExceeded)) }
        if subscription.service == .webPush {
            let key = chosen.texts.map {
                PayloadCache.Key(appID: app.id, messageID: message.id, title: $0.title, body: $0.body,
                                 platform: subscription.platform, privacy: $0.shape)
            }
            return planWebPush(delivery, message: message, send: attended.send, decision: chosen, subscription: subscription,
                               key: key, sendTime: sendTime, now: now, cache: &cache)
        }
        guard case .send(let texts) = chosen else { return .failure(.suppressed(.blank)) }
        let key = PayloadCache.Key(
            appID: app.id, messageID: message.id, title: texts.title, subtitle: texts.subtitle, body: texts.body,
            badge: delivery.badge, platform: subscription.platform, privacy: texts.shape, silenced: attended.silenced)
        if subscription.service == .fcm {
            let fcm = fcmMessage(delivery, message: message, send: attended.send, silenced: attended.silenced,
                                 texts: texts, subscription: subscription, expiration: expiration, now: now)
            let fcmKey = PayloadCache.FCMKey(texts: key, ttl: fcm.fields.ttl)
            let template: FCMBodyTemplate
            if let cached = cache.fcmBodies[fcmKey] {
                template = cached
            } else {
                template = FCMBodyTemplate(fcm)
                cache.fcmBodies[fcmKey] = template
            }
            return .success(Plan(fcm: fcm, body: template.body(token: fcm.token, subscriptionID: fcm.subscriptionID)))
        }
        let built: Result<APNSRequest, Refusal>
        if let cached = cache.built[key] {
            built = cached
        } else {
            var input = NotificationPushInput(
                send: attended.send, title: key.title, subtitle: key.subtitle, body: key.body, badge: key.badge, bundleID: bundleID,
                watchBundleID: app.watchBundleID, platform: key.platform, apnsID: delivery.apnsID, messageID: message.id,
                expiration: expiration)
            input.privacy = key.privacy
            built = NotificationPayload.build(input).mapError { .permanent($0.reason.rawValue) }
            cache.built[key] = built
        }
        return built.map { request in
            var request = request
            request.headers.apnsID = delivery.apnsID
            return Plan(request: request, environment: subscription.environment, activityTimestamp: nil)
        }
    }

    /// The recipient's notification texts; rendered once per batch for recipients alike
    /// (`textsKey`), else for each one.
    static func notificationTexts(_ message: DeliveryContext.Message, send: NotificationSend,
                                  app: DeliveryContext.App, subscription: DeliveryContext.Subscription,
                                  context: DeliveryContext, cache: inout PayloadCache)
        -> Result<AlertPrivacy.Decision, LiquidBudget.Exceeded>
    {
        let shared = textsKey(message, app: app, subscription: subscription)
        if let shared, let known = cache.texts[shared] { return known }
        let liquid = message.rendersLiquid ? liquidContext(subscription, context: context, customData: send.customData) : [:]
        let decision = Result { () throws(LiquidBudget.Exceeded) in
            try notificationTexts(message, send: send, app: app, subscription: subscription, liquid: liquid)
        }
        if let shared { cache.texts[shared] = decision }
        return decision
    }

    /// What the recipient's texts depend on, when other recipients can share them: its
    /// language and privacy choice, and the values of the tags the message's Liquid reads.
    /// Nil when the texts read more of it (`Message.liquidTagNames`): they are its own.
    static func textsKey(_ message: DeliveryContext.Message, app: DeliveryContext.App,
                         subscription: DeliveryContext.Subscription) -> PayloadCache.TextsKey? {
        guard let names = message.liquidTagNames else { return nil }
        return PayloadCache.TextsKey(appID: app.id, messageID: message.id, language: subscription.language,
                                     hideDetails: subscription.hideDetails, tags: names.map { subscription.tags[$0] })
    }

    /// Why nothing more may go to this recipient, if something stopped it after it was queued:
    /// the device was disabled or retired, or its token died. Stops stick, retries included.
    package static func stopped(_ delivery: ClaimedDelivery, context: DeliveryContext) -> String? {
        stopped(delivery, subscription: context.subscription(for: delivery), context: context)
    }

    /// `stopped(_:context:)` with the recipient's subscription already looked up.
    static func stopped(_ delivery: ClaimedDelivery, subscription: DeliveryContext.Subscription?,
                        context: DeliveryContext) -> String? {
        guard let subscription else { return nil }
        guard subscription.reachable else { return "Unsubscribed" }
        switch delivery.tokenKind {
        // The device's token now (`DeliveryContext.withCurrentTokens`): only its death stops it.
        case .device:
            if subscription.tokenInvalid { return "Unregistered" }
        case .widget:
            if subscription.widgetToken == nil { return "Unregistered" }
        case .pushToStart:
            if !context.holdsPushToStartToken(delivery) { return "Unregistered" }
        case .update:
            // Ended by the device, by a dead token or with its subscription; an `end` push
            // (`remote`) leaves the pushes before it to the timestamp rule.
            if let reason = context.activity(for: delivery)?.endedReason, reason != "remote" { return "ActivityEnded" }
        // A device without a token of the kind is counted (`noToken`), not stopped.
        case .channel, .voip, .location, .pushToTalk, .complication, .fileProvider:
            break
        }
        return nil
    }

    /// The Liquid context of one recipient: its tags, `subscription` and `user`, and the
    /// message's `custom_data` as `message.custom_data`.
    static func liquidContext(_ subscription: DeliveryContext.Subscription, context: DeliveryContext,
                              customData: JSONObject? = nil) -> JSONObject {
        LocalizedText.context(
            tags: subscription.tags,
            subscription: ["id": .string(subscription.id), "language": subscription.language.map(JSONValue.string) ?? .null,
                           "country": subscription.country.map(JSONValue.string) ?? .null,
                           "app_version": subscription.appVersion.map(JSONValue.string) ?? .null],
            user: userContext(subscription, context: context), customData: customData)
    }

    static func userContext(_ subscription: DeliveryContext.Subscription, context: DeliveryContext) -> JSONObject {
        guard let externalID = subscription.externalID else { return [:] }
        var user: JSONObject = ["external_id": .string(externalID)]
        let known = context.userAliases(appID: subscription.appID, externalID: externalID)
        user["aliases"] = .object(JSONObject(known.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.string($0.value)) }))
        return user
    }
}
