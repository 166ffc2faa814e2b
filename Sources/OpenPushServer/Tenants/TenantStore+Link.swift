package import OpenPushCore
import OpenPushDelivery
package import Postgres

extension TenantStore {
    package static let unknownLinkCode = "unknown link code"
    package static let tooManyWrongCodes = "too many wrong link codes from this device, try again later"

    /// What one link attempt came to inside its transaction. A wrong code is not thrown, so
    /// that its failure row commits before the `404` goes out.
    private enum LinkAttempt {
        case linked(DeviceLink)
        case wrongCode
    }

    /// Links the app's live device with `token` to the tenant whose link code `code` is, and
    /// issues the device a fresh device key (only its digest is kept). A device already linked
    /// — to this tenant or another — moves only with its current device key (`401`), and its
    /// old key stops working. The row is locked, so two links of one device cannot both win,
    /// and its wrong codes are counted one at a time: after `limit.failures` within the window
    /// every attempt is a `429` until the oldest of them ages out.
    package static func link(token: String, code: String, deviceKey: String?, appID: String, now: Double,
                            limit: LinkFailureLimit = .standard, in database: PostgresPool) async throws -> DeviceLink {
        let issued = KeyMaterial.issue(prefix: "dev")
        let attempt = try await database.transaction { connection -> LinkAttempt in
            guard let device = try connection.query("""
                SELECT s.id, s.device_key_digest FROM subscriptions s
                WHERE s.app_id = \(appID) AND \(SubscriptionStore.tokenNames(token)) AND s.retired_at IS NULL
                FOR UPDATE
                """).first
            else { throw APIError.notFound(NativeDevice.unknownToken) }
            if let digest = try device.decode("device_key_digest", as: [UInt8]?.self) {
                guard let deviceKey, KeyMaterial.matches(deviceKey, digest: digest) else {
                    throw APIError(status: 401, NativeDevice.missingDeviceKey)
                }
            }
            let subscriptionID: String = try device.decode("id")
            if let retryAfter = try LinkFailures.retryAfter(subscriptionID: subscriptionID, limit: limit, now: now,
                                                            in: connection) {
                throw APIError(status: 429, tooManyWrongCodes, headers: ["Retry-After": String(retryAfter)])
            }
            guard let code = LinkCode.normalized(code),
                  let tenant = try connection.query("SELECT id FROM tenants WHERE app_id = \(appID) AND link_code = \(code)").first
            else {
                try LinkFailures.record(subscriptionID: subscriptionID, now: now, in: connection)
                return .wrongCode
            }
            let tenantID: String = try tenant.decode("id")
            try connection.query("""
                UPDATE subscriptions
                SET tenant_id = \(tenantID), device_key_digest = \(issued.digest), updated_at = to_timestamp(\(now))
                WHERE id = \(subscriptionID)
                """)
            return .linked(DeviceLink(deviceKey: issued.value, tenantID: tenantID, subscriptionID: subscriptionID))
        }
        switch attempt {
        case .linked(let link): return link
        case .wrongCode: throw APIError.notFound(unknownLinkCode)
        }
    }
}
