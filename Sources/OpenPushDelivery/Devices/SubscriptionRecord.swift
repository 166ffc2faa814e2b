public import OpenPushCore
public import Postgres

/// One row of `subscriptions`: a device of an app.
public struct SubscriptionRecord: Sendable, Equatable {
    public var id: String
    public var appID: String
    public var token: String
    public var platform: String
    public var environment: DeviceEnvironment
    public var externalID: String?
    public var tags: [String: String]
    public var language: String?
    public var country: String?
    public var timezone: String?
    public var appVersion: String?
    public var deviceModel: String?
    public var deviceOS: String?
    public var enabled: Bool
    public var sessionCount: Int
    /// Unix seconds.
    public var firstSessionAt: Double
    public var lastSessionAt: Double
    public var retiredAt: Double?
    public var supersededBy: String?
    /// On a shared demo app, the tenant the device is linked to.
    public var tenantID: String?
    /// Alerts to it carry the privacy text instead of their texts.
    public var hideDetails: Bool
    /// Device preferences: quiet hours (nil: none) and muted `thread_id`s, in the order sent.
    public var quietHours: QuietHoursWindow?
    public var mutedThreads: [String]

    public var isRetired: Bool { retiredAt != nil }

    /// The columns `init(row:)` reads, from `subscriptions s`; add a `WHERE`.
    public static let columns: PostgresQuery = """
        SELECT s.id, s.app_id, s.token, s.platform, s.environment, s.external_id, s.tags::text AS tags, s.language,
               s.country, s.timezone, s.app_version, s.device_model, s.device_os, s.enabled, s.session_count,
               extract(epoch FROM s.first_session_at)::float8 AS first_session_at,
               extract(epoch FROM s.last_session_at)::float8 AS last_session_at,
               extract(epoch FROM s.retired_at)::float8 AS retired_at, s.superseded_by, s.tenant_id,
               s.hide_details, s.quiet_hours_start, s.quiet_hours_end, s.muted_threads
        FROM subscriptions s
        """

    public init(row: PostgresRow) throws {
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
    }
}
