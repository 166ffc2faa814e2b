/// The query of `GET /notifications/{id}/deliveries`: which of a message's per-device records,
/// how many, and after which one. Every bad parameter is named in one `InvalidInput`.
package struct DeliveryListRequest: Sendable, Equatable {
    /// The states a record can be filtered by (an `Expired` give-up is an `error` with that reason).
    package enum State: String, Sendable, CaseIterable {
        case accepted, error, cancelled, superseded, suppressed
    }

    package static let defaultLimit = 100
    package static let maxLimit = 1000
    package static let invalidCursor = "cursor is not valid"
    package static let emptySubscriptionID = "subscription_id must not be empty"
    package static let invalidState =
        "state must be one of \(State.allCases.map(\.rawValue).joined(separator: ", "))"

    package var subscriptionID: String?
    package var state: State?
    package var limit: Int
    /// Only records past this one (the page after the cursor's); nil from the first.
    package var after: DeliveryPosition?

    package init(subscriptionID: String? = nil, state: State? = nil, limit: Int = defaultLimit, after: DeliveryPosition? = nil) {
        self.subscriptionID = subscriptionID
        self.state = state
        self.limit = limit
        self.after = after
    }

    /// Every parameter is optional; other parameters (such as `app_id`) are not this type's.
    package static func read(_ query: [String: String]) throws(InvalidInput) -> DeliveryListRequest {
        var problems: [String] = []
        var request = DeliveryListRequest()
        if let subscriptionID = query["subscription_id"] {
            if subscriptionID.isEmpty { problems.append(emptySubscriptionID) } else { request.subscriptionID = subscriptionID }
        }
        if let text = query["state"] {
            if let state = State(rawValue: text) { request.state = state } else { problems.append(invalidState) }
        }
        request.limit = PageRequest.limit(query, default: defaultLimit, max: maxLimit, problems: &problems)
        if let text = query["cursor"] {
            if let position = DeliveryPosition(cursor: text) { request.after = position } else { problems.append(invalidCursor) }
        }
        if !problems.isEmpty { throw InvalidInput(problems) }
        return request
    }
}
