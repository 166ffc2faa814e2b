/// The `errors` texts of the two Live Activity send routes, exactly as the reference gives them.
package enum SendMessages {
    package static let bodyMustBeObject = "the request body must be a JSON object"
    package static let startEvent = #"event must be "start" on this route"#
    package static let updateOrEndEvent = #"event must be "update" or "end" on this route"#
    package static let activityIDRequired = "activity_id is required"
    package static let activityIDSlash = "activity_id cannot contain '/'"
    package static let nameTooLong = "name must be 128 characters or fewer"
    package static let staleDateMilliseconds = "stale_date must be a unix timestamp in seconds, not milliseconds"
    package static let priority = "priority must be 5 or 10"
    package static let relevanceScore = "ios_relevance_score must be between 0 and 1"
    package static let dismissalOnStart = "dismissal_date is not supported on a start"
    package static let dismissalOnlyOnEnd = "dismissal_date is supported only on an end"
    package static let exactlyOneTargetingMethod = "use exactly one targeting method"
    package static let excludedWithoutIncluded = "excluded_segments requires included_segments"
    package static let multipleActivityTypes = "the selected activity_id is registered with multiple activity types"
    package static let nothingOpen =
        "no live activity with that id is open on this app — an activity that has ended can never be updated again"
    package static let tooManyRequests = "too many Live Activity requests for this app"
    package static let idempotencyKeyUUID = "idempotency_key must be a UUID"

    package static func nonEmptyObject(_ field: String) -> String {
        "\(field) is required and must be a non-empty JSON object"
    }

    package static func englishEntry(_ field: String) -> String {
        #"\#(field) must include an "en" entry"#
    }

    package static func nobodyStartable(_ activityType: String) -> String {
        "no device has registered a push-to-start token for activity_type '\(activityType)'"
    }
}
