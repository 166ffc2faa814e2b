/// The query of `GET /apps/{app_id}/events`: after which event, which types, how many. Every bad
/// parameter is named in one `400`. The cursor is `DeliveryCursor`'s opaque form of an event's
/// `seq`.
public struct EventFeedRequest: Sendable, Equatable {
    public static let defaultLimit = 100
    public static let maxLimit = 1000
    public static let invalidCursor = "after is not a valid cursor (pass back a next_cursor)"

    /// Only events with a greater `seq`; 0 from the oldest kept.
    public var afterSeq: Int64
    /// nil: every type.
    public var types: [String]?
    public var limit: Int

    public init(afterSeq: Int64 = 0, types: [String]? = nil, limit: Int = defaultLimit) {
        self.afterSeq = afterSeq
        self.types = types
        self.limit = limit
    }

    public static func read(_ query: [String: String]) throws(APIError) -> EventFeedRequest {
        var problems: [String] = []
        var request = EventFeedRequest()
        if let text = query["after"] {
            if let seq = DeliveryCursor.decode(text) { request.afterSeq = seq } else { problems.append(invalidCursor) }
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
        if !problems.isEmpty { throw APIError(status: 400, messages: problems) }
        return request
    }

    /// The types the feed can show: every one but `ping` (which goes to one endpoint only).
    public static let feedTypes = EventType.allCases.filter { $0 != .ping }.map(\.rawValue).joined(separator: ", ")

    /// The `next_cursor` of a page: after its last event, or where the request started when the
    /// page is empty — never null, so a poller always calls again with it.
    public func nextCursor(lastSeq: Int64?) -> String {
        DeliveryCursor.encode(lastSeq ?? afterSeq)
    }
}
