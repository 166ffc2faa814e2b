import OpenPushDelivery
package import Postgres

/// One tenant of a shared demo app: it holds its own REST key and sees only the devices linked
/// to it with its link code.
package struct TenantRecord: Sendable, Equatable {
    package var id: String
    package var appID: String
    package var name: String?
    package var linkCode: String
    /// The live (not retired) devices linked to it.
    package var linkedDevices: Int
    /// Unix seconds.
    package var createdAt: Double

    /// The columns `init(row:)` reads, from `tenants t`; add a `WHERE`.
    package static let columns: PostgresQuery = """
        SELECT t.id, t.app_id, t.name, t.link_code, extract(epoch FROM t.created_at)::float8 AS created_at,
               (SELECT count(*)::int FROM subscriptions s WHERE s.tenant_id = t.id AND s.retired_at IS NULL) AS linked_devices
        FROM tenants t
        """

    package init(row: PostgresRow) throws {
        id = try row.decode("id")
        appID = try row.decode("app_id")
        name = try row.decode("name")
        linkCode = try row.decode("link_code")
        linkedDevices = try row.decode("linked_devices")
        createdAt = try row.decode("created_at")
    }
}

/// A new tenant and its REST key, which the caller sees this once.
package struct CreatedTenant: Sendable {
    package var tenant: TenantRecord
    package var restKey: String
}

/// A device just linked to a tenant, with its device key, shown this once.
package struct DeviceLink: Sendable, Equatable {
    package var deviceKey: String
    package var tenantID: String
    package var subscriptionID: String
}
