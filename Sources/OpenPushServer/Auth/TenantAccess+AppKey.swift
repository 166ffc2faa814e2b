import OpenPushCore
import OpenPushDelivery

/// The check on a REST principal, which only routes have.
extension TenantAccess {
    /// Routes that change what every tenant of the app shares (segments) take the app's own keys.
    static func requireAppKey(_ principal: RESTPrincipal, _ what: String) throws(APIError) {
        if principal.tenantID != nil {
            throw APIError(status: 403, "a tenant's key cannot \(what): they are shared by every tenant of this app")
        }
    }
}
