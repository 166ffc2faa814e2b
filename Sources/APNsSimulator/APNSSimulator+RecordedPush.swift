package import Foundation
package import HTTP2
package import OpenPushCore

extension APNSSimulator {
    /// A push the simulator accepted (answered 200), as it arrived.
    package struct RecordedPush: Sendable, Equatable {
        package var deviceToken: String
        /// The `apns-id` answered: the request's, or the one the simulator made up.
        package var apnsID: String
        /// Request headers without pseudo-headers, in arrival order.
        package var headers: [HTTP2Header]
        package var payload: [UInt8]
        package var receivedAt: Date
        /// A broadcast's channel (`apns-channel-id`); `deviceToken` is empty then.
        package var channelID: String?
        /// The `apns-unique-id` answered, when the simulator plays the sandbox.
        package var uniqueID: String?

        package init(deviceToken: String, apnsID: String, headers: [HTTP2Header], payload: [UInt8], receivedAt: Date,
                    channelID: String? = nil, uniqueID: String? = nil) {
            self.channelID = channelID
            self.uniqueID = uniqueID
            self.deviceToken = deviceToken
            self.apnsID = apnsID
            self.headers = headers
            self.payload = payload
            self.receivedAt = receivedAt
        }

        package func header(_ name: String) -> String? {
            headers.first { $0.name == name }?.value
        }

        /// The payload decoded (the simulator accepts only JSON objects).
        package var payloadJSON: JSONValue? { try? JSONValue.parse(payload) }

        /// The shape the control API serves: token, apns-id (and apns-unique-id), headers (the token in
        /// `authorization` is left out), decoded payload, and the time in ISO 8601.
        package var json: JSONValue {
            var fields = JSONObject()
            for header in headers where header.name != "authorization" {
                fields[header.name] = .string(header.value)
            }
            var json: JSONObject = [
                "token": .string(deviceToken),
                "apns_id": .string(apnsID),
                "headers": .object(fields),
                "payload": payloadJSON ?? .null,
                "received_at": .string(Timestamp.iso8601(receivedAt.timeIntervalSince1970)),
            ]
            if let channelID { json["channel_id"] = .string(channelID) }
            if let uniqueID { json["apns_unique_id"] = .string(uniqueID) }
            return .object(json)
        }
    }
}
