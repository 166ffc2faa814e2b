/// Who made an administrative change: a key, named by its id and never by its value. The
/// deployment's organization key has no row of its own, so its id is `org`.
package enum AuditActor: Sendable, Equatable {
    case organizationKey
    /// One of an app's REST keys, by its `key_…` id.
    case apiKey(id: String)
    /// `openpush apps create` and the embedded demo: an operator at the machine, no key at all.
    case commandLine

    package var id: String {
        switch self {
        case .organizationKey: "org"
        case .apiKey(let id): id
        case .commandLine: "cli"
        }
    }

    package var type: AuditActorType {
        switch self {
        case .organizationKey: .organizationKey
        case .apiKey: .apiKey
        case .commandLine: .commandLine
        }
    }
}

/// The actor kinds as stored and shown (`actor.type`).
package enum AuditActorType: String, Sendable, CaseIterable {
    case organizationKey = "organization_api_key"
    case apiKey = "api_key"
    case commandLine = "command_line"
}
