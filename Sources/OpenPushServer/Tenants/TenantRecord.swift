import OpenPushDelivery
public import Postgres

/// One tenant of a shared demo app: it holds its own REST key and sees only the devices linked
/// to it with its link code.
public struct TenantRecord: Sendable, Equatable {
    public var id: String
    public var appID: String
    public var name: String?
    public var linkCode: String
    /// The live (not retired) devices linked to it.
    public var linkedDevices: Int
    /// Unix seconds.
    public var createdAt: Double

    /// The columns `init(row:)` reads, from `tenants t`; add a `WHERE`.
    public static let columns: PostgresQuery = """
        SELECT t.id, t.app_id, t.name, t.link_code, extract(epoch FROM t.created_at)::float8 AS created_at,
               (SELECT count(*)::int FROM subscriptions s WHERE s.tenant_id = t.id AND s.retired_at IS NULL) AS linked_devices
        FROM tenants t
        """

    public init(row: PostgresRow) throws {
        id = try row.decode("id")
        appID = try row.decode("app_id")
        name = try row.decode("name")
        linkCode = try row.decode("link_code")
        linkedDevices = try row.decode("linked_devices")
        createdAt = try row.decode("created_at")
    }
}

/// A new tenant and its REST key, which the caller sees this once.
public struct CreatedTenant: Sendable {
    public var tenant: TenantRecord
    public var restKey: String
}

/// A device just linked to a tenant, with its device key, shown this once.
public struct DeviceLink: Sendable, Equatable {
    public var deviceKey: String
    public var tenantID: String
    public var subscriptionID: String
}
