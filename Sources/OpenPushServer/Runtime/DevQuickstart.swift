import OpenPushDelivery
/// What `openpush dev` prints after the keys: the console's address and three commands that
/// work as printed — register a device token (SDK key), send it a notification (REST key), and
/// list what the local APNs simulator accepted for that token.
package struct DevQuickstart: Sendable, Equatable {
    /// The demo device's APNs token: hex, and no prefix the simulator answers with an error.
    package static let deviceToken = String(repeating: "c0ffee00", count: 8)
    /// The alias the device registers with and the notification targets.
    package static let externalID = "quickstart-user"

    /// `http://host:port`, the host already bracketed when it is IPv6.
    package var baseURL: String
    package var appID: String
    /// Nil when the key was rotated since it was saved: the commands then name a placeholder.
    package var restKey: String?
    package var sdkKey: String?
    /// The simulator's control API (`http://127.0.0.1:port`), nil when pushes go to real APNs.
    package var simulatorControlURL: String?

    package init(baseURL: String, appID: String, restKey: String?, sdkKey: String?, simulatorControlURL: String?) {
        self.baseURL = baseURL
        self.appID = appID
        self.restKey = restKey
        self.sdkKey = sdkKey
        self.simulatorControlURL = simulatorControlURL
    }

    package var consoleURL: String { baseURL + "/console" }

    /// The three shell commands, in order (the third only with the simulator).
    package var commands: [String] {
        let sdk = sdkKey ?? "<your SDK key>"
        let rest = restKey ?? "<your REST API key>"
        var commands = [
            """
            curl -s -X POST \(baseURL)/v1/apps/\(appID)/subscriptions -H 'X-OP-SDK-Key: \(sdk)' \
            -H 'Content-Type: application/json' -d '{"token": "\(Self.deviceToken)", "external_id": "\(Self.externalID)"}'
            """,
            """
            curl -s -X POST \(baseURL)/notifications -H 'Authorization: Key \(rest)' -H 'Content-Type: application/json' \
            -d '{"app_id": "\(appID)", "include_aliases": {"external_id": ["\(Self.externalID)"]}, "target_channel": "push", \
            "headings": {"en": "Hello"}, "contents": {"en": "Your first push from OpenPush"}}'
            """,
        ]
        if let simulatorControlURL {
            commands.append("curl -s '\(simulatorControlURL)/pushes?token=\(Self.deviceToken)'")
        }
        return commands
    }

    /// The banner's lines, indented like the rest of it.
    package var text: String {
        let steps = commands
        var lines = ["  console: \(consoleURL) (sign in with the organization key)", "  quickstart:"]
        lines.append("    1. register a device token (SDK key):")
        lines.append("       " + steps[0])
        lines.append("    2. send it a notification (REST API key):")
        lines.append("       " + steps[1])
        if steps.count > 2 {
            lines.append("    3. see what the APNs simulator accepted:")
            lines.append("       " + steps[2])
        } else {
            lines.append("    3. the push goes to APNs; GET /notifications/{id}/deliveries?app_id=… shows APNs' answer")
        }
        return lines.joined(separator: "\n")
    }
}
