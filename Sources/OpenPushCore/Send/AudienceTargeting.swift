/// The four ways a send names its audience; a request uses exactly one.
package enum AudienceTargeting: Sendable, Equatable {
    /// `include_aliases`: label → values, in the order the request gave them.
    case aliases([AliasTarget])
    /// `include_subscription_ids`.
    case subscriptionIDs([String])
    /// `included_segments`, with optional `excluded_segments`, by name.
    case segments(included: [String], excluded: [String])
    /// `filters`, in the segment filter language.
    case filters(FilterExpression)

    /// Explicit id lists are capped; the reference looks them up in chunks of 400.
    package static let maximumIDs = 20_000
    package static let lookupChunkSize = 400

    package static let fieldNames = ["include_aliases", "include_subscription_ids", "included_segments", "filters"]
    /// OneSignal's older spellings, read by `POST /notifications` only: `include_player_ids` are
    /// subscription ids, `include_external_user_ids` are `external_id` aliases.
    package static let legacyFieldNames = ["include_player_ids", "include_external_user_ids"]
}

package struct AliasTarget: Sendable, Equatable {
    package var label: String
    package var values: [String]

    package init(label: String, values: [String]) {
        self.label = label
        self.values = values
    }
}

extension AudienceTargeting {
    /// Reads the targeting fields of a send body. Problems are appended to `reader` in a stable
    /// order; returns nil when there is no single valid targeting method.
    package static func read(_ reader: inout FieldReader, legacySpellings: Bool = false) -> AudienceTargeting? {
        let present = (fieldNames + (legacySpellings ? legacyFieldNames : [])).filter { reader.object.isPresent($0) }
        var targeting: AudienceTargeting?
        if let aliases = reader.value("include_aliases"), aliases != .null {
            targeting = readAliases(aliases, &reader)
        }
        if let ids = reader.stringArray("include_subscription_ids") {
            if ids.count > maximumIDs {
                reader.problem("include_subscription_ids: at most \(maximumIDs) ids")
            } else {
                targeting = .subscriptionIDs(ids)
            }
        }
        let included = reader.stringArray("included_segments")
        let excluded = reader.stringArray("excluded_segments")
        if let included {
            targeting = .segments(included: included, excluded: excluded ?? [])
        }
        if let expression = reader.filters("filters") {
            targeting = .filters(expression)
        }
        if legacySpellings {
            if let ids = readIDs("include_player_ids", &reader) { targeting = .subscriptionIDs(ids) }
            if let ids = readIDs("include_external_user_ids", &reader) {
                targeting = .aliases([AliasTarget(label: "external_id", values: ids)])
            }
        }
        if reader.object.isPresent("excluded_segments"), !reader.object.isPresent("included_segments") {
            reader.problem(SendMessages.excludedWithoutIncluded)
        }
        guard present.count == 1 else {
            reader.problem(SendMessages.exactlyOneTargetingMethod)
            return nil
        }
        return targeting
    }

    private static func readIDs(_ key: String, _ reader: inout FieldReader) -> [String]? {
        guard let ids = reader.stringArray(key) else { return nil }
        guard ids.count <= maximumIDs else {
            reader.problem("\(key): at most \(maximumIDs) ids")
            return nil
        }
        return ids
    }

    private static func readAliases(_ value: JSONValue, _ reader: inout FieldReader) -> AudienceTargeting? {
        guard case .object(let labels) = value else {
            reader.problem("include_aliases must be an object of alias label to an array of ids, got \(value.typeName)")
            return nil
        }
        var targets: [AliasTarget] = []
        var total = 0
        for (label, ids) in labels {
            guard case .array(let items) = ids, let values = items.allStrings else {
                reader.problem("include_aliases.\(label) must be an array of strings")
                return nil
            }
            total += values.count
            targets.append(AliasTarget(label: label, values: values))
        }
        guard total <= maximumIDs else {
            reader.problem("include_aliases: at most \(maximumIDs) ids")
            return nil
        }
        return .aliases(targets)
    }
}

extension JSONObject {
    /// Present and not `null`.
    func isPresent(_ key: String) -> Bool {
        guard let value = self[key] else { return false }
        return value != .null
    }
}

extension [JSONValue] {
    var allStrings: [String]? {
        var strings: [String] = []
        for item in self {
            guard case .string(let text) = item else { return nil }
            strings.append(text)
        }
        return strings
    }
}
