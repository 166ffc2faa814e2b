/// The `limit` and `offset` query parameters of a list route.
package struct PageRequest: Sendable, Equatable {
    package var limit: Int
    package var offset: Int

    package init(limit: Int, offset: Int) {
        self.limit = limit
        self.offset = offset
    }

    /// Both are optional; a bad one of either is refused, named.
    package static func read(_ query: [String: String], maxLimit: Int = 100) throws(InvalidInput) -> PageRequest {
        var problems: [String] = []
        var page = PageRequest(limit: limit(query, default: maxLimit, max: maxLimit, problems: &problems), offset: 0)
        if let text = query["offset"] {
            if let offset = Int(text), offset >= 0 {
                page.offset = offset
            } else {
                problems.append("offset must be an integer of 0 or more")
            }
        }
        if !problems.isEmpty { throw InvalidInput(problems) }
        return page
    }

    /// The `limit` parameter alone (for routes that page by cursor, not offset): `default` when
    /// absent; a bad one is added to `problems`, and `default` returned.
    package static func limit(_ query: [String: String], default defaultLimit: Int, max maxLimit: Int,
                             problems: inout [String]) -> Int {
        guard let text = query["limit"] else { return defaultLimit }
        guard let limit = Int(text), (1...maxLimit).contains(limit) else {
            problems.append("limit must be an integer from 1 to \(maxLimit)")
            return defaultLimit
        }
        return limit
    }
}
