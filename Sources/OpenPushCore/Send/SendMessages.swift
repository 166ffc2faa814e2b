/// The `errors` texts of the two Live Activity send routes, exactly as the reference gives them.
public enum SendMessages {
    public static let bodyMustBeObject = "the request body must be a JSON object"
    public static let startEvent = #"event must be "start" on this route"#
    public static let updateOrEndEvent = #"event must be "update" or "end" on this route"#
    public static let activityIDRequired = "activity_id is required"
    public static let activityIDSlash = "activity_id cannot contain '/'"
    public static let nameTooLong = "name must be 128 characters or fewer"
    public static let staleDateMilliseconds = "stale_date must be a unix timestamp in seconds, not milliseconds"
    public static let priority = "priority must be 5 or 10"
    public static let relevanceScore = "ios_relevance_score must be between 0 and 1"
    public static let dismissalOnStart = "dismissal_date is not supported on a start"
    public static let dismissalOnlyOnEnd = "dismissal_date is supported only on an end"
    public static let exactlyOneTargetingMethod = "use exactly one targeting method"
    public static let excludedWithoutIncluded = "excluded_segments requires included_segments"
    public static let multipleActivityTypes = "the selected activity_id is registered with multiple activity types"
    public static let nothingOpen =
        "no live activity with that id is open on this app — an activity that has ended can never be updated again"
    public static let tooManyRequests = "too many Live Activity requests for this app"
    public static let idempotencyKeyUUID = "idempotency_key must be a UUID"

    public static func nonEmptyObject(_ field: String) -> String {
        "\(field) is required and must be a non-empty JSON object"
    }

    public static func englishEntry(_ field: String) -> String {
        #"\#(field) must include an "en" entry"#
    }

    public static func nobodyStartable(_ activityType: String) -> String {
        "no device has registered a push-to-start token for activity_type '\(activityType)'"
    }
}
