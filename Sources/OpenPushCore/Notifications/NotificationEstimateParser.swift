/// The body of `POST /notifications/count-unsaved` (OneSignal's
/// `EstimateNotificationRecipientsRequest`): a send's targeting, validated as a send validates
/// it. A body holding only targeting fields is read as targeting (so it needs no `contents`);
/// a body with any other field is a whole notification, parsed as `POST /notifications` parses
/// it, with the same errors.
package enum NotificationEstimateParser {
    package struct Estimate: Sendable, Equatable {
        package var targeting: AudienceTargeting
        package var kind: NotificationKind
        /// `isIos: false`: the send would reach no Apple device.
        package var appleExcluded: Bool
        /// `isAndroid: false`: the send would reach no Android device.
        package var androidExcluded = false
        /// `isAnyWeb: false` or a browser's own flag `false`: the browsers the send would not reach.
        package var excludedBrowsers: Set<WebPushBrowser> = []

        /// The push services whose devices the send leaves out.
        package var excludedServices: Set<PushService> {
            PushService.excluded(apple: appleExcluded, android: androidExcluded,
                                 web: excludedBrowsers.count == WebPushBrowser.allCases.count)
        }
    }

    static let targetingOnlyFields: Set<String> = Set(AudienceTargeting.fieldNames + AudienceTargeting.legacyFieldNames
        + ["app_id", "excluded_segments", "target_channel", "isIos", "isAndroid"]
        + WebNotificationFields.flags)

    package static func parse(_ body: JSONObject) -> Result<Estimate, InvalidInput> {
        guard body.keys.allSatisfy(targetingOnlyFields.contains) else {
            return NotificationSendParser.parse(body).map {
                Estimate(targeting: $0.targeting, kind: $0.kind, appleExcluded: $0.appleExcluded,
                         androidExcluded: $0.androidExcluded, excludedBrowsers: $0.excludedBrowsers)
            }
        }
        var reader = FieldReader(body)
        _ = reader.value("app_id")
        let targeting = AudienceTargeting.read(&reader, legacySpellings: true)
        NotificationSendParser.readTargetChannel(&reader)
        let appleExcluded = reader.bool("isIos") == false
        let androidExcluded = reader.bool("isAndroid") == false
        let excludedBrowsers = WebNotificationFields.readExclusions(&reader)
        guard reader.problems.isEmpty, let targeting else { return .failure(InvalidInput(reader.problems)) }
        return .success(Estimate(targeting: targeting, kind: .alert, appleExcluded: appleExcluded,
                                 androidExcluded: androidExcluded, excludedBrowsers: excludedBrowsers))
    }
}
