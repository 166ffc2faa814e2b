/// What an audit log entry says happened: every administrative change OpenPush records. The raw
/// values are the names the audit log shows and filters on.
package enum AuditAction: String, Sendable, CaseIterable {
    case appCreated = "app.created"
    case appUpdated = "app.updated"
    case apiKeyCreated = "api_key.created"
    case apiKeyUpdated = "api_key.updated"
    case apiKeyRotated = "api_key.rotated"
    case apiKeyDeleted = "api_key.deleted"
    case sdkKeyRotated = "sdk_key.rotated"
    case webhookCreated = "webhook.created"
    case webhookUpdated = "webhook.updated"
    case webhookDeleted = "webhook.deleted"
    case credentialsUpdated = "credentials.updated"
    case tenantCreated = "tenant.created"
    case tenantDeleted = "tenant.deleted"

    /// The kind of object the action changed (the entry's target): the app itself for its
    /// settings, credentials and SDK key.
    package var targetType: AuditTargetType {
        switch self {
        case .appCreated, .appUpdated, .sdkKeyRotated, .credentialsUpdated: .app
        case .apiKeyCreated, .apiKeyUpdated, .apiKeyRotated, .apiKeyDeleted: .apiKey
        case .webhookCreated, .webhookUpdated, .webhookDeleted: .webhook
        case .tenantCreated, .tenantDeleted: .tenant
        }
    }
}

/// The kinds of object an audit entry's target can be.
package enum AuditTargetType: String, Sendable, CaseIterable {
    case app
    case apiKey = "api_key"
    case webhook
    case tenant
}
