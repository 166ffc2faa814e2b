/// Ordered header fields; names keep their spelling, lookups ignore ASCII case.
package struct HTTPHeaders: Sendable, Sequence, ExpressibleByDictionaryLiteral {
    package typealias Element = (name: String, value: String)

    private var fields: [Element]

    package init() {
        fields = []
    }

    package init(_ fields: [(String, String)]) {
        self.fields = fields.map { (name: $0.0, value: $0.1) }
    }

    package init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    /// The first value for `name`.
    package subscript(name: String) -> String? {
        fields.first { Self.sameName($0.name, name) }?.value
    }

    /// Every value for `name`, in order.
    package func values(for name: String) -> [String] {
        fields.filter { Self.sameName($0.name, name) }.map(\.value)
    }

    package func contains(name: String) -> Bool {
        fields.contains { Self.sameName($0.name, name) }
    }

    package var count: Int { fields.count }

    package mutating func add(name: String, value: String) {
        fields.append((name: name, value: value))
    }

    /// Replaces the first field named `name` and drops the others, or appends one.
    package mutating func replaceOrAdd(name: String, value: String) {
        guard let index = fields.firstIndex(where: { Self.sameName($0.name, name) }) else {
            fields.append((name: name, value: value))
            return
        }
        fields[index] = (name: name, value: value)
        var later = fields.index(after: index)
        while later < fields.endIndex {
            if Self.sameName(fields[later].name, name) {
                fields.remove(at: later)
            } else {
                later += 1
            }
        }
    }

    package mutating func remove(name: String) {
        fields.removeAll { Self.sameName($0.name, name) }
    }

    package func makeIterator() -> IndexingIterator<[Element]> {
        fields.makeIterator()
    }

    /// ASCII case-insensitive comparison without allocating lowercased copies.
    static func sameName(_ lhs: String, _ rhs: String) -> Bool {
        let a = lhs.utf8, b = rhs.utf8
        guard a.count == b.count else { return false }
        for (x, y) in zip(a, b) where x != y {
            guard x | 0x20 == y | 0x20, (x | 0x20) >= UInt8(ascii: "a"), (x | 0x20) <= UInt8(ascii: "z") else {
                return false
            }
        }
        return true
    }
}
