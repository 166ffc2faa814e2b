/// The bounds on tags. Anyone holding an app's public SDK key can write a device's tags, so
/// without them one device could grow a row (and every audience query and rendering that reads
/// it) without limit. A request over them is refused whole: nothing of it is stored.
package enum TagLimits {
    /// Keys one device (or user) may hold, counted after a request's changes are merged into
    /// what is stored; a removal (`""`) does not count and frees its key's place.
    package static let maxKeys = 100
    /// Characters in a key.
    package static let keyLengths: ClosedRange<Int> = 1...128
    /// UTF-8 bytes in a value.
    package static let maxValueBytes = 1024

    /// Whose tags they are, as messages name it.
    package enum Holder: String, Sendable {
        case device
        case user
    }

    /// At most this many problems of one tags object are named in one answer.
    static let reportLimit = 10

    package static func tooManyKeys(_ field: String, _ holder: Holder) -> String {
        "\(field): at most \(maxKeys) keys per \(holder.rawValue)"
    }

    /// What is wrong with a change that takes the stored key count from `before` to `after`;
    /// nil when it may be stored. A change may not take the count above `maxKeys`, nor raise a
    /// count already above it: a device tagged before this bound can still change and remove
    /// its tags (and register again), but not add keys.
    package static func countProblem(before: Int, after: Int, holder: Holder) -> String? {
        guard after > maxKeys, after > before else { return nil }
        return "\(tooManyKeys("tags", holder)): this change would leave \(after)"
    }

    /// The problems of the key–value pairs of one request, each naming the field under `field`.
    static func problems(_ field: String, _ tags: [String: String], holder: Holder) -> [String] {
        var problems: [String] = []
        // Sorted: a stable order of messages whatever the body's.
        for (key, value) in tags.sorted(by: { $0.key < $1.key }) {
            if problems.count == reportLimit { break }
            if value.isEmpty {
                // A removal: any stored key can be removed, even one longer than now allowed.
                if key.isEmpty { problems.append("\(field): a key must be \(keyLengths.lowerBound)-\(keyLengths.upperBound) characters") }
                continue
            }
            guard keyLengths.contains(key.count) else {
                problems.append("\(field): a key must be \(keyLengths.lowerBound)-\(keyLengths.upperBound) characters, got \(key.count)")
                continue
            }
            if value.utf8.count > maxValueBytes {
                problems.append("\(field).\(key): a tag value must be at most \(maxValueBytes) bytes, got \(value.utf8.count)")
            }
        }
        let assigned = tags.values.count(where: { !$0.isEmpty })
        if assigned > maxKeys { problems.insert("\(tooManyKeys(field, holder)), got \(assigned)", at: 0) }
        return problems
    }
}
