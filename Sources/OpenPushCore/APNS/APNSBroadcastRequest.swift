/// One broadcast push on a channel ("Sending broadcast push notification requests to APNs"):
/// `POST /4/broadcasts/apps/<bundleID>` on the push hosts, with `apns-channel-id` naming the
/// channel instead of a device token in the path. Only Live Activities broadcast.
package struct APNSBroadcastRequest: Sendable, Equatable {
    package var bundleID: String
    /// APNs' base64 channel id.
    package var channelID: String
    package var priority: Int
    /// Unix seconds after which APNs stops trying (0: once, now).
    package var expiration: Int
    /// `apns-request-id`: a UUID, fixed per message so a retry carries the same one.
    package var requestID: String
    package var payload: JSONValue
    package var payloadBytes: [UInt8]

    /// Apple's ceiling for a broadcast payload is larger than a device push's.
    package static let maxPayloadBytes = 5120

    package init(bundleID: String, channelID: String, priority: Int, expiration: Int, requestID: String, payload: JSONValue) {
        self.bundleID = bundleID
        self.channelID = channelID
        self.priority = priority
        self.expiration = expiration
        self.requestID = requestID
        self.payload = payload
        payloadBytes = payload.serializedBytes
    }

    package var path: String { "/4/broadcasts/apps/" + bundleID }

    /// The `apns-*` headers, in wire order.
    package var fields: [(name: String, value: String)] {
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
package enum ChannelStoragePolicy: Int, Sendable, Hashable, CaseIterable {
    case noMessageStored = 0
    case mostRecentMessageStored = 1
}
