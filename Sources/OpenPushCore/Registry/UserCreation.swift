/// A user's own properties, OneSignal's names. `nil` leaves a property as it is.
package struct UserProperties: Sendable, Equatable {
    package var tags: TagChanges?
    package var language: String?
    package var timezoneID: String?
    package var country: String?

    package init(tags: TagChanges? = nil, language: String? = nil, timezoneID: String? = nil, country: String? = nil) {
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
package struct UserCreation: Sendable, Equatable {
    package var identity: [String: String]
    package var properties: UserProperties

    package init(identity: [String: String], properties: UserProperties = UserProperties()) {
        self.identity = identity
        self.properties = properties
    }

    package init(body: JSONObject) throws(InvalidInput) {
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
package struct IdentityAddition: Sendable, Equatable {
    package var identity: [String: String]

    package init(body: JSONObject) throws(InvalidInput) {
        var reader = FieldReader(body)
        let identity = reader.identity("identity", required: true)
        if identity?.isEmpty == true { reader.problem("identity must hold at least one alias") }
        reader.rejectUnknownFields()
        try reader.finish()
        self.identity = identity ?? [:]
    }
}
