/// One `NOTIFY` received by a `PostgresListener`.
public struct PostgresNotification: Sendable, Equatable {
    public var channel: String
    public var payload: String

    public init(channel: String, payload: String) {
        self.channel = channel
        self.payload = payload
    }
}
