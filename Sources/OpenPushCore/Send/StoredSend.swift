/// The canonical, versioned form of a validated send, as `messages.send` stores it: written
/// once by the send route, read by every worker that builds pushes from it, so the request
/// parser runs once per message and never again. Pure.
///
/// `{"v": 1, "type": "notification" | "live_activity", …}`: every field of the send under a
/// fixed name, absent when it is `nil` (or `false`). A v1 reader refuses anything it does not
/// know — another version, a missing or mistyped field, an extra field — so a stored form that
/// changed under it fails its message instead of going out wrong.
package enum StoredSend {
    package static let version: Int64 = 1

    package enum SendType: String, Sendable {
        case notification
        case liveActivity = "live_activity"
    }
}

/// Why a stored send does not decode; `reason` becomes the message's `failed_reason`.
package struct StoredSendError: Error, Sendable, Equatable, CustomStringConvertible {
    package var reason: String

    package init(_ reason: String) {
        self.reason = reason
    }

    package var description: String { reason }
}

extension StoredSend {
    /// Checks the envelope (`v` and `type`) and hands back a reader positioned after it.
    static func open(_ value: JSONValue, as type: SendType) throws(StoredSendError) -> StoredFields {
        guard case .object(let object) = value else {
            throw StoredSendError("the stored send is not a JSON object, got \(value.typeName)")
        }
        var fields = StoredFields(object, path: "")
        guard let version = try fields.int("v") else { throw StoredSendError("the stored send has no version 'v'") }
        guard version == Self.version else {
            throw StoredSendError("the stored send has version \(version); this OpenPush reads version \(Self.version)")
        }
        let stored = try fields.requiredString("type")
        guard stored == type.rawValue else {
            throw StoredSendError("the stored send is a \(stored), expected a \(type.rawValue)")
        }
        return fields
    }

    static func envelope(_ type: SendType) -> JSONObject {
        ["v": .int(version), "type": .string(type.rawValue)]
    }

    /// Reads the stored text of `messages.send`.
    package static func parse(_ text: String) throws(StoredSendError) -> JSONValue {
        do {
            return try JSONValue.parse(text)
        } catch {
            throw StoredSendError("the stored send is not JSON: \(error)")
        }
    }
}

/// Typed reads of one stored object, strict: a present key of the wrong type is an error,
/// and `finish()` refuses keys nobody read.
struct StoredFields {
    let object: JSONObject
    /// `buttons[1].` and the like, to name a nested field in an error.
    let path: String
    private var read: Set<String> = []

    init(_ object: JSONObject, path: String) {
        self.object = object
        self.path = path
    }

    /// An array entry that must be an object.
    init(entry: JSONValue, path: String) throws(StoredSendError) {
        guard case .object(let object) = entry else {
            throw StoredSendError("stored send field '\(path.dropLast())' must be an object, got \(entry.typeName)")
        }
        self.init(object, path: path)
    }

    private func wrong(_ key: String, _ expected: String, _ value: JSONValue) -> StoredSendError {
        StoredSendError("stored send field '\(path)\(key)' must be \(expected), got \(value.typeName)")
    }

    /// The raw value; `null` reads as absent.
    mutating func value(_ key: String) -> JSONValue? {
        read.insert(key)
        guard let value = object[key], value != .null else { return nil }
        return value
    }

    mutating func string(_ key: String) throws(StoredSendError) -> String? {
        guard let value = value(key) else { return nil }
        guard case .string(let text) = value else { throw wrong(key, "a string", value) }
        return text
    }

    mutating func requiredString(_ key: String) throws(StoredSendError) -> String {
        guard let text = try string(key) else { throw StoredSendError("stored send field '\(path)\(key)' is missing") }
        return text
    }

    mutating func bool(_ key: String) throws(StoredSendError) -> Bool {
        guard let value = value(key) else { return false }
        guard case .bool(let flag) = value else { throw wrong(key, "a boolean", value) }
        return flag
    }

    mutating func int(_ key: String) throws(StoredSendError) -> Int64? {
        guard let value = value(key) else { return nil }
        guard case .int(let number) = value else { throw wrong(key, "an integer", value) }
        return number
    }

    mutating func double(_ key: String) throws(StoredSendError) -> Double? {
        guard let value = value(key) else { return nil }
        guard let number = value.doubleValue else { throw wrong(key, "a number", value) }
        return number
    }

    mutating func object(_ key: String) throws(StoredSendError) -> JSONObject? {
        guard let value = value(key) else { return nil }
        guard case .object(let object) = value else { throw wrong(key, "an object", value) }
        return object
    }

    mutating func array(_ key: String) throws(StoredSendError) -> [JSONValue]? {
        guard let value = value(key) else { return nil }
        guard case .array(let items) = value else { throw wrong(key, "an array", value) }
        return items
    }

    mutating func strings(_ key: String) throws(StoredSendError) -> [String]? {
        guard let items = try array(key) else { return nil }
        guard let strings = items.allStrings else {
            throw StoredSendError("stored send field '\(path)\(key)' must be an array of strings")
        }
        return strings
    }

    mutating func stringMap(_ key: String) throws(StoredSendError) -> [String: String]? {
        guard let map = try object(key) else { return nil }
        var strings: [String: String] = [:]
        for (name, value) in map {
            guard case .string(let text) = value else { throw wrong(key + "." + name, "a string", value) }
            strings[name] = text
        }
        return strings
    }

    /// Every key must have been read: a field this version does not know is a changed shape.
    func finish() throws(StoredSendError) {
        if let unknown = object.keys.first(where: { !read.contains($0) }) {
            throw StoredSendError("stored send field '\(path)\(unknown)' is not part of version \(StoredSend.version)")
        }
    }
}

extension JSONObject {
    /// Sets `key` only when there is a value: the stored form leaves out what is `nil`.
    mutating func put(_ key: String, _ value: JSONValue?) {
        if let value { self[key] = value }
    }

    mutating func put(_ key: String, _ text: String?) {
        put(key, text.map(JSONValue.string))
    }

    mutating func put(_ key: String, _ map: [String: String]?) {
        put(key, map.map(StoredSend.object(of:)))
    }

    mutating func put(_ key: String, _ number: Int?) {
        put(key, number.map { JSONValue.int(Int64($0)) })
    }

    mutating func put(_ key: String, _ number: Double?) {
        put(key, number.map(JSONValue.double))
    }

    /// A flag is written only when it is set.
    mutating func put(_ key: String, flag: Bool) {
        if flag { self[key] = true }
    }
}

extension StoredSend {
    /// A language map with its keys sorted, so one send always stores the same text.
    static func object(of map: [String: String]) -> JSONValue {
        .object(JSONObject(map.sorted { $0.key < $1.key }.map { ($0.key, JSONValue.string($0.value)) }))
    }

    static func strings(_ values: [String]) -> JSONValue {
        .array(values.map(JSONValue.string))
    }
}
