/// The body of `PATCH /apps/{app_id}/subscriptions/{subscription_id}/owner`, OneSignal's
/// `{"identity": {label: value}}`: one alias naming the new owner, resolved as the users routes
/// resolve `/users/by/{alias_label}/{alias_id}` (so `onesignal_id` and `openpush_id` work too).
package struct SubscriptionTransfer: Sendable, Equatable {
    package var owner: UserLookup

    package init(body: JSONObject) throws(InvalidInput) {
        var reader = FieldReader(body)
        let identity = reader.stringMap("identity", required: true)
        reader.rejectUnknownFields()
        try reader.finish()
        guard let identity, identity.count == 1, let (label, value) = identity.first else {
            throw InvalidInput("identity must hold exactly one alias (label: value) naming the new owner")
        }
        guard !label.isEmpty, label.count <= AliasLabel.maxLabelLength,
              !value.allSatisfy(\.isWhitespace), value.count <= AliasLabel.maxValueLength else {
            throw InvalidInput("identity labels must be 1 to \(AliasLabel.maxLabelLength) characters and values "
                               + "1 to \(AliasLabel.maxValueLength)")
        }
        owner = UserLookup(label: label, value: value)
    }
}
