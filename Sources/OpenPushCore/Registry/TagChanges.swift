/// A tag update, OneSignal's way: a key with a value sets it, a key with `""` removes it, and
/// keys not mentioned stay as they are.
package struct TagChanges: Sendable, Equatable {
    package var assigned: [String: String]
    /// Sorted, so the SQL built from it is stable.
    package var removed: [String]

    package init(_ tags: [String: String]) {
        assigned = tags.filter { !$0.value.isEmpty }
        removed = tags.filter { $0.value.isEmpty }.map(\.key).sorted()
    }

    package static let none = TagChanges([:])

    package var isEmpty: Bool { assigned.isEmpty && removed.isEmpty }

    /// Whether it can add keys, and so take the stored count over `TagLimits.maxKeys`.
    package var assignsKeys: Bool { !assigned.isEmpty }

    package func applied(to existing: [String: String]) -> [String: String] {
        var result = existing.merging(assigned) { _, new in new }
        for key in removed { result[key] = nil }
        return result
    }

    /// The tags to set as a JSON object (keys sorted), for a `jsonb` bind.
    package var setJSON: String { Self.json(assigned) }

    /// Tags as a JSON object with sorted keys.
    package static func json(_ tags: [String: String]) -> String { object(tags).serialized }

    package static func object(_ tags: [String: String]) -> JSONValue {
        .object(JSONObject(tags.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.string($0.value)) }))
    }

    /// Reads a stored tags object back; non-string values (never written by OpenPush) are skipped.
    package static func decode(json: String) -> [String: String] {
        guard let object = (try? JSONValue.parse(json))?.objectValue else { return [:] }
        var tags: [String: String] = [:]
        for (key, value) in object {
            if let text = value.stringValue { tags[key] = text }
        }
        return tags
    }
}

extension FieldReader {
    /// `tags`: an object of strings within `TagLimits` (the count after merging with what is
    /// stored is the store's to check, in the transaction that writes them).
    package mutating func tagChanges(_ key: String, holder: TagLimits.Holder) -> TagChanges? {
        guard let tags = stringMap(key) else { return nil }
        let problems = TagLimits.problems(key, tags, holder: holder)
        guard problems.isEmpty else {
            for message in problems { problem(message) }
            return nil
        }
        return TagChanges(tags)
    }
}
