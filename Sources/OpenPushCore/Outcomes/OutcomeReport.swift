/// A device's report of a custom outcome (`POST /v1/apps/{app_id}/outcomes`):
/// `{"token", "name", "value"?, "notification_id"?}`. With a notification id it is `direct`,
/// else `unattributed`; without a value it counts, adding 0 to the sum.
package struct OutcomeReport: Sendable, Equatable {
    package var token: String
    package var name: String
    package var value: Int64
    package var notificationID: String?

    package init(token: String, name: String, value: Int64, notificationID: String?) {
        self.token = token
        self.name = name
        self.value = value
        self.notificationID = notificationID
    }

    package var attribution: OutcomeQuery.RecordedAttribution { notificationID == nil ? .unattributed : .direct }

    package static func parse(_ body: JSONObject) -> Result<OutcomeReport, InvalidInput> {
        var reader = FieldReader(body)
        let token = reader.string("token", required: true)
        let name = reader.string("name", required: true)
        if let name {
            if let problem = OutcomeName.problem(name) { reader.problem("name: \(problem)") }
            else if name.hasPrefix(OutcomeName.builtInPrefix) {
                reader.problem("name: the prefix \(OutcomeName.builtInPrefix) is reserved for OneSignal's own outcomes")
            }
        }
        let value = reader.integer("value", in: OutcomeLimits.valueRange)
        let notificationID = reader.string("notification_id", maxLength: 64)
        reader.rejectUnknownFields()
        guard reader.problems.isEmpty, let token, let name else { return .failure(InvalidInput(reader.problems)) }
        return .success(OutcomeReport(token: token, name: name, value: value ?? 0,
                                      notificationID: notificationID.flatMap { $0.isEmpty ? nil : $0 }))
    }
}
