/// The stored form of `AudienceTargeting` and of a filter expression, already validated: a
/// worker reads it back without running the filter parser again.
///
/// - `{"aliases": [{"label", "values"}]}` (request order kept)
/// - `{"subscription_ids": […]}`
/// - `{"segments": {"included": […], "excluded": […]}}`
/// - `{"filters": [[condition, …], …]}`: OR of AND groups.
///
/// A condition is `{"field": …}` with its test: `tag` has `key` and `test`; `language` and
/// `country` a text `test`; `app_version` a `test` (`{"text": …}` or `{"version": {"comparison",
/// "value"}}`); `session_count` a number `test`; `last_session` and `first_session` have
/// `comparison` and `hours_ago`. Text tests: `{"equals": s}`, `{"not_equals": s}`,
/// `{"exists": true}`, `{"not_exists": true}`, `{"in_array": […]}`, `{"not_in_array": […]}`.
extension StoredSend {
    static func encode(_ targeting: AudienceTargeting) -> JSONValue {
        switch targeting {
        case .aliases(let targets):
            return ["aliases": .array(targets.map { ["label": .string($0.label), "values": strings($0.values)] })]
        case .subscriptionIDs(let ids):
            return ["subscription_ids": strings(ids)]
        case .segments(let included, let excluded):
            return ["segments": ["included": strings(included), "excluded": strings(excluded)]]
        case .filters(let expression):
            return ["filters": encode(expression)]
        }
    }

    static func decodeTargeting(_ object: JSONObject) throws(StoredSendError) -> AudienceTargeting {
        var fields = StoredFields(object, path: "targeting.")
        guard object.count == 1 else { throw StoredSendError("stored send field 'targeting' must hold exactly one method") }
        let targeting: AudienceTargeting
        if let targets = try fields.array("aliases") {
            var aliases: [AliasTarget] = []
            for (index, item) in targets.enumerated() {
                guard case .object(let entry) = item else { throw StoredSendError("stored alias target \(index) is not an object") }
                var target = StoredFields(entry, path: "targeting.aliases[\(index)].")
                let label = try target.requiredString("label")
                guard let values = try target.strings("values") else {
                    throw StoredSendError("stored send field 'targeting.aliases[\(index)].values' is missing")
                }
                try target.finish()
                aliases.append(AliasTarget(label: label, values: values))
            }
            targeting = .aliases(aliases)
        } else if let ids = try fields.strings("subscription_ids") {
            targeting = .subscriptionIDs(ids)
        } else if let segments = try fields.object("segments") {
            var lists = StoredFields(segments, path: "targeting.segments.")
            guard let included = try lists.strings("included"), let excluded = try lists.strings("excluded") else {
                throw StoredSendError("stored send field 'targeting.segments' needs 'included' and 'excluded'")
            }
            try lists.finish()
            targeting = .segments(included: included, excluded: excluded)
        } else if let groups = try fields.array("filters") {
            targeting = .filters(try decodeFilters(groups))
        } else {
            throw StoredSendError("stored send field 'targeting' holds no known method")
        }
        try fields.finish()
        return targeting
    }

    // MARK: filters

    static func encode(_ expression: FilterExpression) -> JSONValue {
        .array(expression.groups.map { .array($0.map(encode)) })
    }

    static func decodeFilters(_ groups: [JSONValue]) throws(StoredSendError) -> FilterExpression {
        var decoded: [[FilterCondition]] = []
        for (index, group) in groups.enumerated() {
            guard case .array(let conditions) = group, !conditions.isEmpty else {
                throw StoredSendError("stored filter group \(index) is not a non-empty array")
            }
            var decodedGroup: [FilterCondition] = []
            for (position, condition) in conditions.enumerated() {
                guard case .object(let object) = condition else {
                    throw StoredSendError("stored filter \(index).\(position) is not an object")
                }
                decodedGroup.append(try decodeCondition(object, path: "targeting.filters[\(index)][\(position)]."))
            }
            decoded.append(decodedGroup)
        }
        guard !decoded.isEmpty else { throw StoredSendError("stored filters hold no group") }
        return FilterExpression(groups: decoded)
    }

    static func encode(_ condition: FilterCondition) -> JSONValue {
        switch condition {
        case .tag(let key, let test):
            let encoded: JSONValue = switch test {
            case .text(let text): ["text": encode(text)]
            case .number(let comparison, let value): ["number": ["comparison": .string(comparison.rawValue), "value": .double(value)]]
            case .timeElapsed(let comparison, let seconds):
                ["time_elapsed": ["comparison": .string(comparison.rawValue), "seconds": .double(seconds)]]
            }
            return ["field": "tag", "key": .string(key), "test": encoded]
        case .language(let test):
            return ["field": "language", "test": encode(test)]
        case .country(let test):
            return ["field": "country", "test": encode(test)]
        case .appVersion(let test):
            let encoded: JSONValue = switch test {
            case .text(let text): ["text": encode(text)]
            case .version(let comparison, let value): ["version": ["comparison": .string(comparison.rawValue), "value": .string(value)]]
            }
            return ["field": "app_version", "test": encoded]
        case .sessionCount(let test):
            let encoded: JSONValue = switch test {
            case .equals(let value): ["equals": .double(value)]
            case .notEquals(let value): ["not_equals": .double(value)]
            case .greaterThan(let value): ["greater_than": .double(value)]
            case .lessThan(let value): ["less_than": .double(value)]
            }
            return ["field": "session_count", "test": encoded]
        case .lastSession(let comparison, let hours):
            return ["field": "last_session", "comparison": .string(comparison.rawValue), "hours_ago": .double(hours)]
        case .firstSession(let comparison, let hours):
            return ["field": "first_session", "comparison": .string(comparison.rawValue), "hours_ago": .double(hours)]
        }
    }

    static func decodeCondition(_ object: JSONObject, path: String) throws(StoredSendError) -> FilterCondition {
        var fields = StoredFields(object, path: path)
        let field = try fields.requiredString("field")
        let condition: FilterCondition
        switch field {
        case "tag":
            let key = try fields.requiredString("key")
            let test = try single(try fields.object("test"), path: path + "test")
            var inner = StoredFields(test.body, path: path + "test.\(test.name).")
            switch test.name {
            case "text":
                condition = .tag(key: key, .text(try decodeText(test.body, path: path + "test.text")))
            case "number":
                condition = .tag(key: key, .number(try comparison(&inner), try required(inner.double("value"), path, "value")))
                try inner.finish()
            case "time_elapsed":
                condition = .tag(key: key, .timeElapsed(try comparison(&inner), seconds: try required(inner.double("seconds"), path, "seconds")))
                try inner.finish()
            default:
                throw StoredSendError("stored tag test '\(test.name)' is unknown")
            }
        case "language", "country":
            guard let test = try fields.object("test") else { throw StoredSendError("stored send field '\(path)test' is missing") }
            let text = try decodeText(test, path: path + "test")
            condition = field == "language" ? .language(text) : .country(text)
        case "app_version":
            let test = try single(try fields.object("test"), path: path + "test")
            switch test.name {
            case "text":
                condition = .appVersion(.text(try decodeText(test.body, path: path + "test.text")))
            case "version":
                var inner = StoredFields(test.body, path: path + "test.version.")
                condition = .appVersion(.version(try comparison(&inner), try inner.requiredString("value")))
                try inner.finish()
            default:
                throw StoredSendError("stored app_version test '\(test.name)' is unknown")
            }
        case "session_count":
            guard let test = try fields.object("test"), test.count == 1, let name = test.keys.first,
                  let value = test[name]?.doubleValue else {
                throw StoredSendError("stored send field '\(path)test' must be one number test")
            }
            switch name {
            case "equals": condition = .sessionCount(.equals(value))
            case "not_equals": condition = .sessionCount(.notEquals(value))
            case "greater_than": condition = .sessionCount(.greaterThan(value))
            case "less_than": condition = .sessionCount(.lessThan(value))
            default: throw StoredSendError("stored session_count test '\(name)' is unknown")
            }
        case "last_session", "first_session":
            let comparison = try comparison(&fields)
            let hours = try required(fields.double("hours_ago"), path, "hours_ago")
            condition = field == "last_session" ? .lastSession(comparison, hoursAgo: hours) : .firstSession(comparison, hoursAgo: hours)
        default:
            throw StoredSendError("stored filter field '\(field)' is unknown")
        }
        try fields.finish()
        return condition
    }

    static func encode(_ test: TextTest) -> JSONValue {
        switch test {
        case .equals(let value): ["equals": .string(value)]
        case .notEquals(let value): ["not_equals": .string(value)]
        case .exists: ["exists": true]
        case .notExists: ["not_exists": true]
        case .inArray(let values): ["in_array": strings(values)]
        case .notInArray(let values): ["not_in_array": strings(values)]
        }
    }

    static func decodeText(_ object: JSONObject, path: String) throws(StoredSendError) -> TextTest {
        guard object.count == 1, let name = object.keys.first, let value = object[name] else {
            throw StoredSendError("stored send field '\(path)' must be one text test")
        }
        switch (name, value) {
        case ("equals", .string(let text)): return .equals(text)
        case ("not_equals", .string(let text)): return .notEquals(text)
        case ("exists", .bool(true)): return .exists
        case ("not_exists", .bool(true)): return .notExists
        case ("in_array", .array(let items)):
            guard let values = items.allStrings else { break }
            return .inArray(values)
        case ("not_in_array", .array(let items)):
            guard let values = items.allStrings else { break }
            return .notInArray(values)
        default:
            break
        }
        throw StoredSendError("stored send field '\(path)' holds an unknown text test '\(name)'")
    }

    /// A one-key object naming the variant, e.g. `{"number": {…}}`.
    private static func single(_ object: JSONObject?, path: String) throws(StoredSendError) -> (name: String, body: JSONObject) {
        guard let object, object.count == 1, let name = object.keys.first else {
            throw StoredSendError("stored send field '\(path)' must be an object with one variant")
        }
        guard case .object(let body)? = object[name] else {
            if name == "text" { throw StoredSendError("stored send field '\(path).text' must be an object") }
            throw StoredSendError("stored send field '\(path).\(name)' must be an object")
        }
        return (name, body)
    }

    private static func comparison(_ fields: inout StoredFields) throws(StoredSendError) -> Comparison {
        let text = try fields.requiredString("comparison")
        guard let comparison = Comparison(rawValue: text) else { throw StoredSendError("stored comparison '\(text)' is unknown") }
        return comparison
    }

    private static func required<Value>(_ value: Value?, _ path: String, _ key: String) throws(StoredSendError) -> Value {
        guard let value else { throw StoredSendError("stored send field '\(path)\(key)' is missing") }
        return value
    }
}
