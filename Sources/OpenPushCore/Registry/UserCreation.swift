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
