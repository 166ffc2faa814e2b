/// The query of `GET /apps/{app_id}/events`: after which event, which types, how many. Every bad
/// parameter is named in one `InvalidInput`. The cursor is the opaque form of an `EventPosition`.
package struct EventFeedRequest: Sendable, Equatable {
    package static let defaultLimit = 100
    package static let maxLimit = 1000
    package static let invalidCursor = "after is not a valid cursor (pass back a next_cursor)"

    /// Only events after this position; `.start`: from the oldest kept.
    package var after: EventPosition
    /// nil: every type.
    package var types: [String]?
    package var limit: Int

    package init(after: EventPosition = .start, types: [String]? = nil, limit: Int = defaultLimit) {
        self.after = after
        self.types = types
        self.limit = limit
    }

    package static func read(_ query: [String: String]) throws(InvalidInput) -> EventFeedRequest {
        var problems: [String] = []
        var request = EventFeedRequest()
        if let text = query["after"] {
            if let position = EventPosition(cursor: text) { request.after = position } else { problems.append(invalidCursor) }
        }
        if let text = query["types"] {
            var types: [String] = []
            for name in text.split(separator: ",", omittingEmptySubsequences: false).map(String.init) {
                if EventType(rawValue: name) == nil || name == EventType.ping.rawValue {
                    problems.append("types: unknown event type '\(name)' (known: \(feedTypes))")
                } else if !types.contains(name) {
                    types.append(name)
                }
            }
            request.types = types
        }
        request.limit = PageRequest.limit(query, default: defaultLimit, max: maxLimit, problems: &problems)
        if !problems.isEmpty { throw InvalidInput(problems) }
        return request
    }

    /// The types the feed can show: every one but `ping` (which goes to one endpoint only).
    package static let feedTypes = EventType.allCases.filter { $0 != .ping }.map(\.rawValue).joined(separator: ", ")

    /// The `next_cursor` of a page: after its last event, or where the request started when the
    /// page is empty — never null, so a poller always calls again with it.
    package func nextCursor(last: EventPosition?) -> String {
        (last ?? after).cursor
    }
}
