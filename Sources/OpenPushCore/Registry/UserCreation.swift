/// A user's own properties, OneSignal's names. `nil` leaves a property as it is.
public struct UserProperties: Sendable, Equatable {
    public var tags: TagChanges?
    public var language: String?
    public var timezoneID: String?
    public var country: String?

    public init(tags: TagChanges? = nil, language: String? = nil, timezoneID: String? = nil, country: String? = nil) {
        self.tags = tags
        self.language = language
        self.timezoneID = timezoneID
        self.country = country
    }

    static func read(_ reader: inout FieldReader) -> UserProperties {
        let limit = AliasLabel.maxValueLength
        let properties = UserProperties(tags: reader.tagChanges("tags", holder: .user), language: reader.string("language", maxLength: limit),
                                        timezoneID: reader.string("timezone_id", maxLength: limit),
                                        country: reader.string("country", maxLength: limit))
        reader.rejectUnknownFields()
        return properties
    }
}

/// The body of `POST /apps/{app_id}/users`: at least one alias, and optional properties.
public struct UserCreation: Sendable, Equatable {
    public var identity: [String: String]
    public var properties: UserProperties

    public init(identity: [String: String], properties: UserProperties = UserProperties()) {
        self.identity = identity
        self.properties = properties
    }

    public init(body: JSONObject) throws(InvalidInput) {
        var reader = FieldReader(body)
        let identity = reader.identity("identity", required: true)
        if identity?.isEmpty == true { reader.problem("identity must hold at least one alias") }
        properties = reader.nestedObject("properties", UserProperties.read) ?? UserProperties()
        reader.rejectUnknownFields()
        try reader.finish()
        self.identity = identity ?? [:]
    }
}

/// The body of `PATCH …/identity`: the aliases to add.
public struct IdentityAddition: Sendable, Equatable {
    public var identity: [String: String]

    public init(body: JSONObject) throws(InvalidInput) {
        var reader = FieldReader(body)
        let identity = reader.identity("identity", required: true)
        if identity?.isEmpty == true { reader.problem("identity must hold at least one alias") }
        reader.rejectUnknownFields()
        try reader.finish()
        self.identity = identity ?? [:]
    }
}
