/// One broadcast push on a channel ("Sending broadcast push notification requests to APNs"):
/// `POST /4/broadcasts/apps/<bundleID>` on the push hosts, with `apns-channel-id` naming the
/// channel instead of a device token in the path. Only Live Activities broadcast.
public struct APNSBroadcastRequest: Sendable, Equatable {
    public var bundleID: String
    /// APNs' base64 channel id.
    public var channelID: String
    public var priority: Int
    /// Unix seconds after which APNs stops trying (0: once, now).
    public var expiration: Int
    /// `apns-request-id`: a UUID, fixed per message so a retry carries the same one.
    public var requestID: String
    public var payload: JSONValue
    public var payloadBytes: [UInt8]

    /// Apple's ceiling for a broadcast payload is larger than a device push's.
    public static let maxPayloadBytes = 5120

    public init(bundleID: String, channelID: String, priority: Int, expiration: Int, requestID: String, payload: JSONValue) {
        self.bundleID = bundleID
        self.channelID = channelID
        self.priority = priority
        self.expiration = expiration
        self.requestID = requestID
        self.payload = payload
        payloadBytes = payload.serializedBytes
    }

    public var path: String { "/4/broadcasts/apps/" + bundleID }

    /// The `apns-*` headers, in wire order.
    public var fields: [(name: String, value: String)] {
        [
            ("apns-push-type", APNSPushType.liveActivity.rawValue),
            ("apns-channel-id", channelID),
            ("apns-priority", String(priority)),
            ("apns-expiration", String(expiration)),
            ("apns-request-id", requestID),
        ]
    }
}

/// A channel's message storage policy (`message-storage-policy`): 0 keeps nothing for an
/// offline device, 1 keeps the newest message.
public enum ChannelStoragePolicy: Int, Sendable, Hashable, CaseIterable {
    case noMessageStored = 0
    case mostRecentMessageStored = 1
}
