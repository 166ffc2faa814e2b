import OpenPushDelivery
/// What `openpush dev` prints after the keys: the console's address and three commands that
/// work as printed — register a device token (SDK key), send it a notification (REST key), and
/// list what the local APNs simulator accepted for that token. With the FCM simulator, an
/// Android device of the same user registers too, and the same send reaches it.
package struct DevQuickstart: Sendable, Equatable {
    /// The demo device's APNs token: hex, and no prefix the simulator answers with an error.
    package static let deviceToken = String(repeating: "c0ffee00", count: 8)
    /// A made-up FCM registration token (printable ASCII, as real ones are) for the Android device.
    package static let androidToken = "quickstart-android:APA91b" + String(repeating: "Qx7", count: 40)
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
    /// The FCM simulator's control API, nil when Android pushes go to real FCM (no Android step then).
    package var fcmControlURL: String?
    /// A browser subscription the Web Push simulator made, nil when there is no simulator.
    package var webSubscription: WebSubscription?

    /// What a browser's `PushSubscription` gives: where to push and its keys, and where the
    /// simulator lists what it received there.
    package struct WebSubscription: Sendable, Equatable {
        package var endpoint: String
        package var p256dh: String
        package var auth: String
        /// The simulator's `GET /pushes?path=…` for this subscription.
        package var pushesURL: String

        package init(endpoint: String, p256dh: String, auth: String, pushesURL: String) {
            self.endpoint = endpoint
            self.p256dh = p256dh
            self.auth = auth
            self.pushesURL = pushesURL
        }
    }

    package init(baseURL: String, appID: String, restKey: String?, sdkKey: String?, simulatorControlURL: String?,
                 fcmControlURL: String? = nil, webSubscription: WebSubscription? = nil) {
        self.baseURL = baseURL
        self.appID = appID
        self.restKey = restKey
        self.sdkKey = sdkKey
        self.simulatorControlURL = simulatorControlURL
        self.fcmControlURL = fcmControlURL
        self.webSubscription = webSubscription
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

    /// With the FCM simulator: the same user's Android device registers (`"platform": "android"`,
    /// a made-up FCM token), and a command lists what the simulator accepted for that token.
    package var androidCommands: (register: String, list: String)? {
        guard let fcmControlURL else { return nil }
        let sdk = sdkKey ?? "<your SDK key>"
        let register = """
            curl -s -X POST \(baseURL)/v1/apps/\(appID)/subscriptions -H 'X-OP-SDK-Key: \(sdk)' \
            -H 'Content-Type: application/json' \
            -d '{"platform": "android", "token": "\(Self.androidToken)", "external_id": "\(Self.externalID)"}'
            """
        return (register, "curl -s '\(fcmControlURL)/messages?token=\(Self.androidToken)'")
    }

    /// With the Web Push simulator: the same user's browser subscription registers
    /// (`"platform": "web"`), and a command lists the pushes the simulator decrypted for it.
    package var webCommands: (register: String, list: String)? {
        guard let web = webSubscription else { return nil }
        let sdk = sdkKey ?? "<your SDK key>"
        let register = """
            curl -s -X POST \(baseURL)/v1/apps/\(appID)/subscriptions -H 'X-OP-SDK-Key: \(sdk)' \
            -H 'Content-Type: application/json' -d '{"platform": "web", "token": "\(web.endpoint)", \
            "web_p256": "\(web.p256dh)", "web_auth": "\(web.auth)", "external_id": "\(Self.externalID)"}'
            """
        return (register, "curl -s '\(web.pushesURL)'")
    }

    /// The banner's lines, indented like the rest of it.
    package var text: String {
        let steps = commands
        let android = androidCommands
        let web = webCommands
        var lines = ["  console: \(consoleURL) (sign in with the organization key)", "  quickstart:"]
        lines.append("    1. register a device token (SDK key):")
        lines.append("       " + steps[0])
        if let android {
            lines.append("       and an Android device of the same user (a made-up FCM registration token):")
            lines.append("       " + android.register)
        }
        if let web {
            lines.append("       and a browser of the same user (a subscription the Web Push simulator made):")
            lines.append("       " + web.register)
        }
        switch (android == nil ? 0 : 1) + (web == nil ? 0 : 1) {
        case 0: lines.append("    2. send it a notification (REST API key):")
        case 1: lines.append("    2. send it a notification (REST API key); it reaches both devices:")
        default: lines.append("    2. send it a notification (REST API key); it reaches all three devices:")
        }
        lines.append("       " + steps[1])
        if steps.count > 2 {
            lines.append("    3. see what the APNs simulator accepted:")
            lines.append("       " + steps[2])
        } else {
            lines.append("    3. the push goes to APNs; GET /notifications/{id}/deliveries?app_id=… shows APNs' answer")
        }
        if let android {
            lines.append("       and what the FCM simulator accepted:")
            lines.append("       " + android.list)
        }
        if let web {
            lines.append("       and what the Web Push simulator received, decrypted:")
            lines.append("       " + web.list)
        }
        return lines.joined(separator: "\n")
    }
}
