package import Foundation
import OpenPushCore

extension FCMSimulator {
    package struct Configuration: Sendable {
        /// A numeric IP address for all three listeners.
        package var host: String
        /// FCM v1 sends over h2c (prior knowledge); 0 picks a free port.
        package var port: UInt16
        /// `POST /token` over HTTP/1.1.
        package var tokenPort: UInt16
        /// The control API over HTTP/1.1; `nil` does not publish it (tests may call `control` directly).
        package var controlPort: UInt16?
        /// The accounts whose assertions `POST /token` accepts.
        package var serviceAccounts: [ServiceAccount]
        /// How long an access token is valid (Google: 3600 s).
        package var accessTokenLifetime: Int
        /// Accepted messages kept for the control API (the oldest go first).
        package var recordLimit: Int
        package var now: @Sendable () -> Date

        package init(
            host: String = "127.0.0.1", port: UInt16 = 0, tokenPort: UInt16 = 0, controlPort: UInt16? = nil,
            serviceAccounts: [ServiceAccount], accessTokenLifetime: Int = 3600, recordLimit: Int = 50_000,
            now: @escaping @Sendable () -> Date = Date.init
        ) {
            self.host = host
            self.port = port
            self.tokenPort = tokenPort
            self.controlPort = controlPort
            self.serviceAccounts = serviceAccounts
            self.accessTokenLifetime = accessTokenLifetime
            self.recordLimit = recordLimit
            self.now = now
        }
    }

    /// What the simulator needs of a Google service account key file.
    package struct ServiceAccount: Sendable {
        package var clientEmail: String
        package var privateKeyID: String
        package var projectID: String
        /// The key's `private_key` PEM (only its public half is used).
        package var privateKeyPEM: String

        package init(clientEmail: String, privateKeyID: String, projectID: String, privateKeyPEM: String) {
            self.clientEmail = clientEmail
            self.privateKeyID = privateKeyID
            self.projectID = projectID
            self.privateKeyPEM = privateKeyPEM
        }

        /// Reads the JSON text of a service account key file.
        package init(json: [UInt8]) throws(FCMSimulatorError) {
            guard let object = (try? JSONValue.parse(json))?.objectValue else {
                throw FCMSimulatorError("a service account key file is a JSON object")
            }
            func field(_ name: String) throws(FCMSimulatorError) -> String {
                guard let value = object[name]?.stringValue, !value.isEmpty else {
                    throw FCMSimulatorError("the service account key has no \"\(name)\"")
                }
                return value
            }
            guard try field("type") == "service_account" else {
                throw FCMSimulatorError("the key's \"type\" is not \"service_account\"")
            }
            self.init(clientEmail: try field("client_email"), privateKeyID: try field("private_key_id"),
                      projectID: try field("project_id"), privateKeyPEM: try field("private_key"))
        }
    }
}
