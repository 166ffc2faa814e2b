extension APNSSimulator {
    /// How the simulator answers a valid push to a token with a given prefix: a status and
    /// reason (200 = accepted and recorded), optionally after a delay.
    package struct Behaviour: Sendable, Equatable {
        package var status: Int
        /// Apple's reason string for a rejection; `nil` for 200.
        package var reason: String?
        /// How long the answer waits; the connection keeps serving other streams meanwhile.
        package var delay: Duration
        /// On 410: how long before the answer APNs learned the token was invalid (its `timestamp`).
        package var invalidFor: Duration

        package init(status: Int, reason: String? = nil, delay: Duration = .zero, invalidFor: Duration = .zero) {
            self.status = status
            self.reason = reason
            self.delay = delay
            self.invalidFor = invalidFor
        }

        package static let accept = Behaviour(status: 200)
        /// 410 with a `timestamp`, as for an uninstalled app or an ended activity.
        package static let unregistered = Behaviour(status: 410, reason: "Unregistered")
        package static let badDeviceToken = Behaviour(status: 400, reason: "BadDeviceToken")
        package static let tooManyRequests = Behaviour(status: 429, reason: "TooManyRequests")
        package static let internalServerError = Behaviour(status: 500, reason: "InternalServerError")
        package static let serviceUnavailable = Behaviour(status: 503, reason: "ServiceUnavailable")
        package static func slow(_ delay: Duration) -> Behaviour { Behaviour(status: 200, delay: delay) }
        /// 410 Unregistered whose `timestamp` lies `age` in the past.
        package static func unregistered(since age: Duration) -> Behaviour {
            Behaviour(status: 410, reason: "Unregistered", invalidFor: age)
        }

        /// The built-in table, by lower-case hex token prefix (tokens are hex, so the
        /// prefixes are hex words):
        ///
        /// | prefix | answer |
        /// |---|---|
        /// | `dead` | 410 Unregistered, with `timestamp` |
        /// | `bad0` | 400 BadDeviceToken |
        /// | `5105` | 200 after `Configuration.slowDelay` ("slow") |
        /// | `4290` | 429 TooManyRequests |
        /// | `5000` | 500 InternalServerError |
        /// | `5030` | 503 ServiceUnavailable |
        ///
        /// Any other token is accepted. The longest matching prefix wins, so a custom
        /// `dead00` entry can override `dead`.
        package static func builtIn(slowDelay: Duration) -> [String: Behaviour] {
            [
                "dead": .unregistered,
                "bad0": .badDeviceToken,
                "5105": .slow(slowDelay),
                "4290": .tooManyRequests,
                "5000": .internalServerError,
                "5030": .serviceUnavailable,
            ]
        }
    }
}

extension [String: APNSSimulator.Behaviour] {
    /// The behaviour of the longest prefix of `token` (compared in lower case).
    func behaviour(forToken token: String) -> APNSSimulator.Behaviour? {
        let token = token.lowercased()
        var best: (length: Int, behaviour: APNSSimulator.Behaviour)?
        for (prefix, behaviour) in self where token.hasPrefix(prefix) && prefix.count > (best?.length ?? -1) {
            best = (prefix.count, behaviour)
        }
        return best?.behaviour
    }
}
