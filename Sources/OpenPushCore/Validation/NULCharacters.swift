/// U+0000 has no place in anything OpenPush stores: libpq ends a text parameter at the first NUL
/// (so less than was sent would be stored, or matched), and `jsonb` refuses `\u0000` outright
/// (SQLSTATE 22P05). A request holding one is refused up front, naming where it was.
package enum NULCharacters {
    /// At most this many places are named in one answer; a body can hold thousands.
    package static let reportLimit = 10

    package static func message(_ name: String) -> String { "\(name) must not contain NUL characters" }

    package static func contains(_ text: String) -> Bool { text.utf8.contains(0) }

    /// Every place in a request body holding a NUL, in body order, named as validation names
    /// fields: `name`, `data.order`, `filters[0].value`; a key holding one names its object
    /// (`data keys`, or `field names` at the top).
    package static func problems(in object: JSONObject) -> [String] {
        var found: [String] = []
        collect(object, path: "", into: &found)
        return found
    }

    private static func collect(_ object: JSONObject, path: String, into found: inout [String]) {
        for (key, value) in object {
            guard found.count < reportLimit else { return }
            if contains(key) {
                found.append(message(path.isEmpty ? "field names" : "\(path) keys"))
            }
            collect(value, path: path.isEmpty ? key : "\(path).\(key)", into: &found)
        }
    }

    private static func collect(_ value: JSONValue, path: String, into found: inout [String]) {
        guard found.count < reportLimit else { return }
        switch value {
        case .string(let text):
            if contains(text) { found.append(message(path)) }
        case .array(let items):
            for (index, item) in items.enumerated() { collect(item, path: "\(path)[\(index)]", into: &found) }
        case .object(let object):
            collect(object, path: path, into: &found)
        case .null, .bool, .int, .double:
            break
        }
    }
}
