import Foundation
import Testing
import OpenPushServer

/// The quickstart `openpush dev` prints: the console's address and three commands.
@Suite struct DevQuickstartTextTests {
    static let quickstart = DevQuickstart(baseURL: "http://127.0.0.1:8080", appID: "app_1", restKey: "rest-key",
                                          sdkKey: "sdk-key", simulatorControlURL: "http://127.0.0.1:2198")

    @Test func theCommandsCarryTheKeysTheTokenAndTheAlias() {
        let commands = Self.quickstart.commands
        #expect(commands.count == 3)
        #expect(commands[0].contains("http://127.0.0.1:8080/v1/apps/app_1/subscriptions"))
        #expect(commands[0].contains("X-OP-SDK-Key: sdk-key"))
        #expect(commands[0].contains(DevQuickstart.deviceToken))
        #expect(commands[1].contains("http://127.0.0.1:8080/notifications"))
        #expect(commands[1].contains("Authorization: Key rest-key"))
        #expect(commands[1].contains(#""external_id": ["quickstart-user"]"#))
        #expect(commands[2] == "curl -s 'http://127.0.0.1:2198/pushes?token=\(DevQuickstart.deviceToken)'")
        #expect(Self.quickstart.text.contains("console: http://127.0.0.1:8080/console"))
        // One command a line, so it can be copied whole.
        for command in commands { #expect(!command.contains("\n")) }
    }

    @Test func aRotatedKeyIsAPlaceholderAndRealAPNsHasNoThirdCommand() {
        var quickstart = Self.quickstart
        quickstart.restKey = nil
        quickstart.simulatorControlURL = nil
        #expect(quickstart.commands.count == 2)
        #expect(quickstart.commands[1].contains("<your REST API key>"))
        #expect(quickstart.text.contains("3. the push goes to APNs"))
    }

    @Test func theDeviceTokenIsOneTheSimulatorAccepts() {
        #expect(DevQuickstart.deviceToken.count == 64)
        for prefix in ["dead", "bad0", "5105", "4290", "5000", "5030"] { #expect(!DevQuickstart.deviceToken.hasPrefix(prefix)) }
    }

    @Test func withTheFCMSimulatorAnAndroidDeviceOfTheSameUserRegistersAndItsMessagesAreListed() throws {
        var quickstart = Self.quickstart
        #expect(quickstart.androidCommands == nil)
        #expect(!quickstart.text.contains("Android"))
        quickstart.fcmControlURL = "http://127.0.0.1:2201"
        let android = try #require(quickstart.androidCommands)
        #expect(android.register.contains("http://127.0.0.1:8080/v1/apps/app_1/subscriptions"))
        #expect(android.register.contains("X-OP-SDK-Key: sdk-key"))
        #expect(android.register.contains(#""platform": "android""#))
        #expect(android.register.contains(#""token": "\#(DevQuickstart.androidToken)""#))
        #expect(android.register.contains(#""external_id": "quickstart-user""#))
        #expect(android.list == "curl -s 'http://127.0.0.1:2201/messages?token=\(DevQuickstart.androidToken)'")
        #expect(!android.register.contains("\n"))
        // The three iOS commands stay as they were; the Android ones sit beside steps 1 and 3.
        #expect(quickstart.commands == Self.quickstart.commands)
        let lines = quickstart.text.components(separatedBy: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let register = try #require(lines.firstIndex { $0.contains("and an Android device") })
        #expect(lines[register + 1] == android.register)
        let list = try #require(lines.firstIndex { $0.contains("and what the FCM simulator accepted") })
        #expect(lines[list + 1] == android.list)
        #expect(quickstart.text.contains("it reaches both devices"))
    }

    @Test func theAndroidTokenIsOneFCMWouldTakeAsARegistrationToken() {
        #expect((1...4096).contains(DevQuickstart.androidToken.utf8.count))
        #expect(DevQuickstart.androidToken.utf8.allSatisfy { (0x21...0x7E).contains($0) })
        // Pasted between single quotes and into a query string unescaped.
        #expect(!DevQuickstart.androidToken.contains("'"))
        #expect(!DevQuickstart.androidToken.contains("&"))
    }

    @Test func withTheWebPushSimulatorABrowserOfTheSameUserRegistersAndItsPushesAreListed() throws {
        var quickstart = Self.quickstart
        #expect(quickstart.webCommands == nil)
        quickstart.webSubscription = .init(endpoint: "http://127.0.0.1:2210/push/quickstart", p256dh: "BCVx-p256dh", auth: "BTBZ-auth",
                                           pushesURL: "http://127.0.0.1:2211/pushes?path=/push/quickstart")
        let web = try #require(quickstart.webCommands)
        #expect(web.register.contains("http://127.0.0.1:8080/v1/apps/app_1/subscriptions"))
        #expect(web.register.contains(#""platform": "web", "token": "http://127.0.0.1:2210/push/quickstart""#))
        #expect(web.register.contains(#""web_p256": "BCVx-p256dh", "web_auth": "BTBZ-auth""#))
        #expect(web.register.contains(#""external_id": "quickstart-user""#))
        #expect(!web.register.contains("\n"))
        #expect(web.list == "curl -s 'http://127.0.0.1:2211/pushes?path=/push/quickstart'")
        #expect(quickstart.commands == Self.quickstart.commands)
        let lines = quickstart.text.components(separatedBy: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let register = try #require(lines.firstIndex { $0.contains("and a browser of the same user") })
        #expect(lines[register + 1] == web.register)
        let list = try #require(lines.firstIndex { $0.contains("and what the Web Push simulator received") })
        #expect(lines[list + 1] == web.list)
        #expect(quickstart.text.contains("it reaches both devices"))
        quickstart.fcmControlURL = "http://127.0.0.1:2201"
        #expect(quickstart.text.contains("it reaches all three devices"))
    }
}
