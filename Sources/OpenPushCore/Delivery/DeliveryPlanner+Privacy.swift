/// The planner's use of `AlertPrivacy`: which texts a device is sent, rendered for it.
extension DeliveryPlanner {
    /// A notification's texts for this device: its own, the privacy text instead, or `.blank`.
    /// Background and widget pushes carry no alert, so they are never blank. Throws when one
    /// text's Liquid exhausts its budget.
    static func notificationTexts(_ message: DeliveryContext.Message, send: NotificationSend, app: DeliveryContext.App,
                                  subscription: DeliveryContext.Subscription, liquid: JSONObject)
        throws(LiquidBudget.Exceeded) -> AlertPrivacy.Decision
    {
        let language = subscription.language
        let title = try message.headings.render(language: language, context: liquid, limit: LocalizedText.titleLimit)
        let subtitle = try message.subtitle.render(language: language, context: liquid, limit: LocalizedText.titleLimit)
        let body = try message.contents.render(language: language, context: liquid, limit: LocalizedText.bodyLimit)
        guard send.kind == .alert else { return .send(AlertPrivacy.Texts(title: title, subtitle: subtitle, body: body, shape: .full)) }
        let localized = send.apnsAlert.map { alert in NotificationSendParser.apnsAlertVisibleKeys.contains { alert[$0] != nil } } ?? false
        let privacyText = try message.privacyText.render(language: language, context: liquid, limit: LocalizedText.bodyLimit)
        return AlertPrivacy.notification(
            privacy: send.privacy, hideDetails: subscription.hideDetails, title: title, subtitle: subtitle, body: body,
            privacyText: privacyText,
            defaultPrivacyText: app.defaultPrivacyText, localized: localized)
    }

    /// A Live Activity push's alert texts for this device; `nil` texts with shape
    /// `blankFallback` mean the push goes without its `alert` (sound included).
    static func liveActivityTexts(_ message: DeliveryContext.Message, send: LiveActivitySend, app: DeliveryContext.App,
                                  subscription: DeliveryContext.Subscription, liquid: JSONObject)
        throws(LiquidBudget.Exceeded) -> AlertPrivacy.Texts?
    {
        let title = try message.headings.render(language: subscription.language, context: liquid, limit: LocalizedText.titleLimit)
        let body = try message.contents.render(language: subscription.language, context: liquid, limit: LocalizedText.bodyLimit)
        switch AlertPrivacy.liveActivity(event: send.event, hasTexts: send.headings != nil || send.contents != nil,
                                         hideDetails: subscription.hideDetails, title: title, body: body,
                                         defaultPrivacyText: app.defaultPrivacyText) {
        case .send(let texts): return texts
        case .dropAlert: return AlertPrivacy.Texts(shape: .blankFallback)
        case .blank: return nil
        }
    }
}
