/// The app's delivery policy settings: integers with a default, never cleared (`null` is a
/// problem on an update, and means the default on creation).
extension AppFields {
    package static let liveActivityUpdateInterval = "live_activity_update_interval_seconds"
    package static let widgetPushInterval = "widget_push_interval_seconds"

    mutating func readDeliveryPolicy(_ reader: inout FieldReader, for purpose: Purpose) {
        liveActivityUpdateIntervalSeconds = Self.interval(&reader, Self.liveActivityUpdateInterval,
                                                          in: LiveActivityCoalescing.intervalRange, purpose: purpose)
        widgetPushIntervalSeconds = Self.interval(&reader, Self.widgetPushInterval, in: WidgetThrottle.intervalRange,
                                                  purpose: purpose)
    }

    private static func interval(_ reader: inout FieldReader, _ key: String, in range: ClosedRange<Int64>,
                                 purpose: Purpose) -> Int? {
        if purpose == .update, reader.object[key] == .null {
            _ = reader.value(key)
            reader.problem("\(key) cannot be null")
            return nil
        }
        return reader.integer(key, in: range).map(Int.init)
    }
}
