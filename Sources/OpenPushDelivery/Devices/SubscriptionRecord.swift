package import OpenPushCore
package import Postgres

/// One row of `subscriptions`: a device of an app.
package struct SubscriptionRecord: Sendable, Equatable {
    package var id: String
    package var appID: String
    package var token: String
    package var platform: String
    package var environment: DeviceEnvironment
    package var externalID: String?
    package var tags: [String: String]
    package var language: String?
    package var country: String?
    package var timezone: String?
    package var appVersion: String?
    package var deviceModel: String?
    package var deviceOS: String?
    package var enabled: Bool
    package var sessionCount: Int
    /// Unix seconds.
    package var firstSessionAt: Double
    package var lastSessionAt: Double
    package var retiredAt: Double?
    package var supersededBy: String?
    /// On a shared demo app, the tenant the device is linked to.
    package var tenantID: String?
    /// Alerts to it carry the privacy text instead of their texts.
    package var hideDetails: Bool
    /// Device preferences: quiet hours (nil: none) and muted `thread_id`s, in the order sent.
    package var quietHours: QuietHoursWindow?
    package var mutedThreads: [String]
    /// OneSignal's `sdk` and `session_time` (seconds), as a backend reported them; nil until then.
    package var sdk: String?
    package var sessionTime: Int64?
    /// The kinds of extra token (VoIP and the others) the device holds, sorted; never their values.
    package var pushTokenKinds: [ExtraTokenKind]
    /// A browser subscription's OneSignal type (`ChromePush` …); nil for other devices.
    package var webType: String?
    /// OneSignal's `notification_types` as a backend last sent it; nil when never, or when
    /// `enabled` was sent alone since. Read back through `shownNotificationTypes`.
    package var notificationTypes: Int64?

    package var isRetired: Bool { retiredAt != nil }

    /// The columns `init(row:)` reads, from `subscriptions s`; add a `WHERE`.
    package static let columns: PostgresQuery = """
        SELECT s.id, s.app_id, s.token, s.platform, s.environment, s.external_id, s.tags::text AS tags, s.language,
               s.country, s.timezone, s.app_version, s.device_model, s.device_os, s.enabled, s.session_count,
               extract(epoch FROM s.first_session_at)::float8 AS first_session_at,
               extract(epoch FROM s.last_session_at)::float8 AS last_session_at,
               extract(epoch FROM s.retired_at)::float8 AS retired_at, s.superseded_by, s.tenant_id,
               s.hide_details, s.quiet_hours_start, s.quiet_hours_end, s.muted_threads, s.sdk, s.session_time,
               s.web_type, s.notification_types::bigint AS notification_types, ARRAY(SELECT t.kind FROM device_push_tokens t WHERE t.subscription_id = s.id) AS push_token_kinds
        FROM subscriptions s
        """

    package init(row: PostgresRow) throws {
        id = try row.decode("id")
        appID = try row.decode("app_id")
        token = try row.decode("token")
        platform = try row.decode("platform")
        let environment: String = try row.decode("environment")
        // A value this build does not know is a broken row: never read as production.
        guard let known = DeviceEnvironment(rawValue: environment) else {
            throw InvariantViolation("subscription environment '\(environment)' is neither production nor sandbox")
        }
        self.environment = known
        externalID = try row.decode("external_id")
        tags = TagChanges.decode(json: try row.decode("tags"))
        language = try row.decode("language")
        country = try row.decode("country")
        timezone = try row.decode("timezone")
        appVersion = try row.decode("app_version")
        deviceModel = try row.decode("device_model")
        deviceOS = try row.decode("device_os")
        enabled = try row.decode("enabled")
        sessionCount = try row.decode("session_count")
        firstSessionAt = try row.decode("first_session_at")
        lastSessionAt = try row.decode("last_session_at")
        retiredAt = try row.decode("retired_at")
        supersededBy = try row.decode("superseded_by")
        tenantID = try row.decode("tenant_id")
        hideDetails = try row.decode("hide_details")
        quietHours = Self.quietHours(start: try row.decode("quiet_hours_start"), end: try row.decode("quiet_hours_end"))
        mutedThreads = try row.decode("muted_threads")
        sdk = try row.decode("sdk")
        sessionTime = try row.decode("session_time")
        webType = try row.decode("web_type")
        notificationTypes = try row.decode("notification_types")
        let kinds: [String] = try row.decode("push_token_kinds")
        pushTokenKinds = try kinds.map { stored in
            guard let kind = ExtraTokenKind(rawValue: stored) else {
                throw InvariantViolation("a device's extra token has kind '\(stored)'")
            }
            return kind
        }.sorted { $0.rawValue < $1.rawValue }
    }
}
