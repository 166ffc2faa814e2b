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
}
