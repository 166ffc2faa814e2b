/// `include_aliases` of a send, grouped by what each label resolves through. Note that here, as
/// the contract says, `openpush_id` names a *subscription*; `onesignal_id` keeps OneSignal's
/// meaning, the user's id. `external_id` is the id the subscriptions carry; any other label is a
/// custom alias leading to a user and then to that user's `external_id`.
package struct AudienceAliases: Sendable, Equatable {
    package var externalIDs: [String] = []
    package var subscriptionIDs: [String] = []
    package var userIDs: [String] = []
    /// Custom label → values, labels sorted.
    package var custom: [(label: String, values: [String])] = []

    package init(_ aliases: [String: [String]]) {
        self.init(aliases.map { AliasTarget(label: $0.key, values: $0.value) })
    }

    /// From a send body's `include_aliases` as `AudienceTargeting` reads it.
    package init(_ targets: [AliasTarget]) {
        for (label, values) in targets.sorted(by: { $0.label < $1.label }).map({ ($0.label, $0.values) }) {
            switch label {
            case AliasLabel.externalID: externalIDs += values
            case AliasLabel.subscriptionID, "openpush_id": subscriptionIDs += values
            case "onesignal_id": userIDs += values
            default: custom.append((label, values))
            }
        }
    }

    package static func == (lhs: AudienceAliases, rhs: AudienceAliases) -> Bool {
        lhs.externalIDs == rhs.externalIDs && lhs.subscriptionIDs == rhs.subscriptionIDs && lhs.userIDs == rhs.userIDs
            && lhs.custom.map(\.label) == rhs.custom.map(\.label) && lhs.custom.map(\.values) == rhs.custom.map(\.values)
    }
}
