/// The body of `POST /v1/apps/{app_id}/subscriptions/tokens` (and of its `/remove`, which has no
/// `push_token`): the device's ordinary `token`, which names it, the extra token's `kind`, and
/// that kind's token. Unknown fields are ignored, as on the other SDK routes.
package struct ExtraTokenInput: Sendable, Equatable {
    /// The device's ordinary token, as sent (the store matches either service's stored form).
    package var token: String
    package var kind: ExtraTokenKind
    /// Lower-cased hex, as Apple tokens are stored; nil on removal.
    package var pushToken: String?

    /// PushKit tokens are 32 bytes today; Apple promises no length, so the bound is generous.
    package static let pushTokenLengths = 16...512

    /// `registering`: the body must carry `push_token` (a removal ignores one).
    package init(body: JSONObject, registering: Bool) throws(InvalidInput) {
        var reader = FieldReader(body)
        let token = reader.deviceTokenLookup("token", required: true)
        let kind = reader.choice("kind", among: ExtraTokenKind.allCases, required: true)
        var pushToken: String?
        if registering {
            if let problem = LiveActivityInput.tokenProblem("push_token", reader.value("push_token"), lengths: Self.pushTokenLengths) {
                reader.problem(problem)
            } else if case .string(let sent)? = body["push_token"] {
                pushToken = sent.lowercased()
            }
        }
        try reader.finish()
        guard let token, let kind else { throw InvalidInput(["token and kind are required"]) }
        self.token = token
        self.kind = kind
        self.pushToken = pushToken
    }
}
