package import Foundation
package import HTTP2
package import OpenPushCore

extension APNSSimulator {
    /// How a connection's pushes proved who sent them.
    package enum Authentication: Sendable, Hashable {
        /// A provider token (its key id and team id; checked unless `acceptAnyToken`).
        case providerToken(keyID: String, teamID: String)
        /// The connection's verified client certificate, by its UID.
        case certificate(uid: String)
        /// Neither: `acceptAnyToken` let it through without a (readable) token.
        case none

        var json: JSONValue {
            switch self {
            case .providerToken(let keyID, let teamID):
                ["method": "token", "key_id": .string(keyID), "team_id": .string(teamID)]
            case .certificate(let uid): ["method": "certificate", "uid": .string(uid)]
            case .none: ["method": "none"]
            }
        }
    }

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
        /// How it was authenticated.
        package var authentication: Authentication
        /// Which of the simulator's connections it came over (numbered from 1 as accepted).
        package var connectionID: Int

        package init(deviceToken: String, apnsID: String, headers: [HTTP2Header], payload: [UInt8], receivedAt: Date,
                    channelID: String? = nil, uniqueID: String? = nil, authentication: Authentication = .none,
                    connectionID: Int = 0) {
            self.channelID = channelID
            self.uniqueID = uniqueID
            self.authentication = authentication
            self.connectionID = connectionID
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

        /// The shape the control API serves: token, apns-id (and apns-unique-id), headers (the
        /// token in `authorization` is left out), decoded payload, the time in ISO 8601, how it
        /// was authenticated and over which connection.
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
                "authentication": authentication.json,
                "connection": .int(Int64(connectionID)),
            ]
            if let channelID { json["channel_id"] = .string(channelID) }
            if let uniqueID { json["apns_unique_id"] = .string(uniqueID) }
            return .object(json)
        }
    }
}
