/// A validated `POST /apps/{app_id}/live_activities/channels` body.
package struct ChannelFields: Sendable, Equatable {
    package var name: String
    package var storagePolicy: ChannelStoragePolicy
    package var environment: DeviceEnvironment

    package init(name: String, storagePolicy: ChannelStoragePolicy, environment: DeviceEnvironment) {
        self.name = name
        self.storagePolicy = storagePolicy
        self.environment = environment
    }

    package static let maxNameLength = 128

    /// Every problem, in field order, then unknown fields.
    package static func parse(_ body: JSONObject) -> Result<ChannelFields, InvalidInput> {
        var reader = FieldReader(body)
        var name: String?
        switch reader.value("name") {
        case .string(let text)? where !text.allSatisfy(\.isWhitespace) && text.count <= maxNameLength:
            name = text
        default:
            reader.problem("name is required: a non-blank string of at most \(maxNameLength) characters")
        }
        var policy: ChannelStoragePolicy?
        switch reader.value("message_storage_policy") {
        case nil, .null?: policy = .noMessageStored
        case .int(let value)?: policy = ChannelStoragePolicy(rawValue: Int(value))
        default: break
        }
        if policy == nil {
            reader.problem("message_storage_policy must be 0 (no message stored) or 1 (the most recent message stored)")
        }
        var environment: DeviceEnvironment?
        switch reader.value("environment") {
        case nil, .null?: environment = .production
        case .string(let text)?: environment = DeviceEnvironment(rawValue: text)
        default: break
        }
        if environment == nil {
            reader.problem(#"environment must be "sandbox" or "production""#)
        }
        reader.rejectUnknownFields()
        guard reader.problems.isEmpty, let name, let policy, let environment else {
            return .failure(InvalidInput(reader.problems))
        }
        return .success(ChannelFields(name: name, storagePolicy: policy, environment: environment))
    }
}
