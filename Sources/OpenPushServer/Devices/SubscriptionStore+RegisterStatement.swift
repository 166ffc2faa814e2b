package import OpenPushCore
import OpenPushDelivery
package import Postgres

/// What `openpush_register_subscription` did: refused the call before writing, or registered.
package enum RegistrationOutcome: Sendable, Equatable {
    case unknownApp
    case badSDKKey
    /// A shared demo app's device linked to a tenant, without its `X-OP-Device-Key`.
    case missingDeviceKey
    case registered(RegisteredSubscription)
}

extension SubscriptionStore {
    /// The SQLSTATE `openpush_register_subscription` raises for a change over the tag bound.
    static let tagBoundState = "OPTAG"

    /// A registration without a `previous_token` in one statement, one round trip and one commit:
    /// the SDK-key check (`presentedSDKKey`), the shared-demo device-key rule, the upsert with its
    /// privacy and attention fields, the tag bound and the user of its `external_id`, all in
    /// `migrations/functions/openpush_register_subscription.sql`. Behaves as `register` does;
    /// a token refresh takes that transaction instead.
    package static func registerInOneStatement(_ r: SubscriptionRegistration, appID: String, presentedSDKKey: String?,
                                               deviceKey: String?, now: Double,
                                               in database: PostgresPool) async throws -> RegistrationOutcome {
        precondition(r.previousToken == nil, "a token refresh registers through register(_:app:…)")
        let subscriptionID = Identifier.make(prefix: "sub", now: now, random: KeyMaterial.identifierEntropy())
        // The id of the user an `external_id` may create; the function uses it only when no user holds it.
        let userID = (r.externalID ?? "").isEmpty ? nil
            : Identifier.make(prefix: "usr", now: now, random: KeyMaterial.identifierEntropy())
        let window = r.quietHours.newValue
        let query: PostgresQuery = """
            SELECT outcome, subscription_id, created FROM openpush_register_subscription(
                \(appID), \(presentedSDKKey.map(KeyMaterial.digest))::bytea, \(deviceKey.map(KeyMaterial.digest))::bytea,
                \(subscriptionID), \(userID), \(now), \(r.token), \(r.platform), \(r.environment?.rawValue),
                \(r.externalID), \(r.tags.setJSON)::jsonb, \(r.tags.removed)::text[], \(r.tags.assignsKeys),
                \(TagLimits.maxKeys), \(r.language), \(r.country), \(r.timezone), \(r.appVersion), \(r.deviceModel),
                \(r.deviceOS), \(r.enabled), \(r.widgetPushToken), \(r.hideDetails), \(r.quietHours.isKeep),
                \(window?.start)::smallint, \(window?.end)::smallint, \(r.mutedThreads)::text[])
            """
        let row: PostgresRow
        do {
            guard let first = try await database.query(query.prepared).first else {
                throw InvariantViolation("openpush_register_subscription returned no row")
            }
            row = first
        } catch let error as PostgresError where error.sqlState == tagBoundState {
            throw try tagBoundError(error)
        }
        let outcome: String = try row.decode("outcome")
        switch Outcome(rawValue: outcome) {
        case nil: throw InvariantViolation("openpush_register_subscription answered '\(outcome)'")
        case .unknownApp: return .unknownApp
        case .badSDKKey: return .badSDKKey
        case .deviceKey: return .missingDeviceKey
        case .registered:
            return .registered(RegisteredSubscription(id: try row.decode("subscription_id"), created: try row.decode("created")))
        }
    }

    /// The `400` of `TagBound.check`, from the counts the function raised with (`DETAIL 'before after'`).
    private static func tagBoundError(_ error: PostgresError) throws -> APIError {
        guard case .server(_, _, let detail?) = error.kind else { throw error }
        let counts = detail.split(separator: " ").compactMap { Int($0) }
        guard counts.count == 2,
              let problem = TagLimits.countProblem(before: counts[0], after: counts[1], holder: .device) else { throw error }
        return APIError.badRequest(problem)
    }

    /// The function's `outcome` column.
    private enum Outcome: String {
        case unknownApp = "unknown_app"
        case badSDKKey = "bad_sdk_key"
        case deviceKey = "device_key"
        case registered
    }
}
