/// How `/apps/{app_id}/users/by/{alias_label}/{alias_id}` names a user.
package enum UserLookup: Sendable, Equatable {
    /// `openpush_id` or OneSignal's `onesignal_id`: the `usr_…` id itself.
    case userID(String)
    /// `subscription_id`: the user whose `external_id` that subscription carries.
    case subscriptionID(String)
    /// `external_id` or any custom label: a row of `user_aliases`.
    case alias(label: String, value: String)

    package init(label: String, value: String) {
        if AliasLabel.userID.contains(label) {
            self = .userID(value)
        } else if label == AliasLabel.subscriptionID {
            self = .subscriptionID(value)
        } else {
            self = .alias(label: label, value: value)
        }
    }
}

/// The alias labels with a fixed meaning. Every other label is a custom alias.
package enum AliasLabel {
    package static let externalID = "external_id"
    package static let subscriptionID = "subscription_id"
    /// Both spellings of the user's own id, shown in every identity.
    package static let userID = ["openpush_id", "onesignal_id"]
    /// Labels OpenPush assigns or resolves itself, which no stored alias may use.
    package static let reserved = userID + [subscriptionID]
    package static let maxLabelLength = 64
    package static let maxValueLength = 255
}

extension FieldReader {
    /// An `identity` object: label → value, both non-blank, no reserved label.
    package mutating func identity(_ key: String, required: Bool = false) -> [String: String]? {
        guard let identity = stringMap(key, required: required) else { return nil }
        var valid = true
        for (label, value) in identity.sorted(by: { $0.key < $1.key }) {
            if AliasLabel.reserved.contains(label) {
                problem("\(key).\(label) is assigned by OpenPush and cannot be set")
                valid = false
            } else if label.isEmpty || label.count > AliasLabel.maxLabelLength {
                problem("\(key) labels must be 1 to \(AliasLabel.maxLabelLength) characters")
                valid = false
            } else if value.allSatisfy(\.isWhitespace) || value.count > AliasLabel.maxValueLength {
                problem("\(key).\(label) must be 1 to \(AliasLabel.maxValueLength) characters")
                valid = false
            }
        }
        return valid ? identity : nil
    }
}
