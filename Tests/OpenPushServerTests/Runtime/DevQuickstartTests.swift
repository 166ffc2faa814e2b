import Foundation
import Testing
import OpenPushCore
import OpenPushServer
import OpenPushTestSupport
import Subprocess

/// `openpush dev` prints a quickstart that works as printed: the test reads the commands from
/// the output of a spawned `openpush dev`, runs each with `/bin/sh`, and finds the push in the
/// APNs simulator's record (and, for the Android device, in the FCM simulator's).
@Suite struct DevQuickstartTests {
    /// The line after the one holding `marker`, trimmed: where the banner prints each command.
    static func command(after marker: String, in log: String) throws -> String {
        let lines = log.components(separatedBy: "\n")
        let index = try #require(lines.firstIndex { $0.contains(marker) }, "no '\(marker)' in:\n\(log)")
        return try #require(lines.dropFirst(index + 1).first).trimmingCharacters(in: .whitespaces)
    }

    static func shell(_ command: String) async throws -> JSONValue {
        let output = try await Subprocess.run("/bin/sh", ["-c", command])
        #expect(output.status == 0, "\(command): \(output.text)")
        return try JSONValue.parse(Array(output.text.utf8))
    }

    @Test func theThreePrintedCommandsDeliverAPushToTheSimulator() async throws {
        let database = try await TestDatabase.create()
        let directory = try TemporaryDirectory.make(prefix: "dev-quickstart")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let dev = try OpenPushProcess(["dev"], environment: [
            "OPENPUSH_DATABASE_URL": database.conninfo, "OPENPUSH_LISTEN": "127.0.0.1:0",
        ], workingDirectory: directory)
        defer { dev.signal(SIGTERM) }
        _ = try await dev.waitForLog("3. see what the APNs simulator accepted")
        // The next line is printed with it; give the pipe a moment if it is not there yet.
        _ = try await dev.waitForLog("/pushes?token=")
        let log = dev.log
        let console = try #require(log.components(separatedBy: "\n").first { $0.contains("console: ") })
        #expect(console.contains("http://127.0.0.1:"))
        #expect(console.contains("/console"))

        let register = try Self.command(after: "1. register a device token", in: log)
        let send = try Self.command(after: "2. send it a notification", in: log)
        let list = try Self.command(after: "3. see what the APNs simulator accepted", in: log)

        let registered = try await Self.shell(register)
        #expect(registered.objectValue?["created"] == true, "\(registered)")
        #expect(registered.objectValue?["id"]?.stringValue?.hasPrefix("sub_") == true)
        let sent = try await Self.shell(send)
        let messageID = try #require(sent.objectValue?["id"]?.stringValue, "\(sent)")
        #expect(messageID.hasPrefix("msg_"))

        // Delivery is asynchronous: the push reaches the simulator within moments.
        let deadline = ContinuousClock.now + .seconds(120)
        var pushes: [JSONValue] = []
        while ContinuousClock.now < deadline {
            pushes = try await Self.shell(list).objectValue?["pushes"]?.arrayValue ?? []
            if !pushes.isEmpty { break }
            try await Task.sleep(for: .milliseconds(200))
        }
        let push = try #require(pushes.first?.objectValue, "the simulator recorded nothing:\n\(dev.log)")
        #expect(pushes.count == 1)
        #expect(push["token"]?.stringValue == DevQuickstart.deviceToken)
        let alert = push["payload"]?.objectValue?["aps"]?.objectValue?["alert"]?.objectValue
        #expect(alert?["title"] == "Hello")
        #expect(alert?["body"] == "Your first push from OpenPush")

        // The demo app's channels live on the same simulator: `dev` points the channel
        // management hosts at it too, so a channel is created and a broadcast reaches it.
        let restKey = try #require(send.firstMatch(of: /Key ([^']+)'/)?.1)
        let appID = try #require(send.firstMatch(of: /"app_id": "([^"]+)"/)?.1)
        let base = try #require(send.firstMatch(of: /(http:\/\/[^ ]+)\/notifications/)?.1)
        let control = try #require(list.firstMatch(of: /'(http:\/\/[^\/]+)\/pushes/)?.1)
        let channel = try await Self.shell(
            "curl -s -X POST \(base)/apps/\(appID)/live_activities/channels -H 'Authorization: Key \(restKey)' "
                + "-H 'Content-Type: application/json' "
                + #"-d '{"name": "scores", "message_storage_policy": 0, "environment": "sandbox"}'"#)
        let channelRow = try #require(channel.objectValue?["id"]?.stringValue, "\(channel)")
        let channelID = try #require(channel.objectValue?["channel_id"]?.stringValue)
        let broadcast = try await Self.shell(
            "curl -s -X POST \(base)/apps/\(appID)/live_activities/channels/\(channelRow)/notifications "
                + "-H 'Authorization: Key \(restKey)' -H 'Content-Type: application/json' "
                + #"-d '{"event": "update", "name": "score", "event_updates": {"home": 1}}'"#)
        #expect(broadcast.objectValue?["id"]?.stringValue?.hasPrefix("msg_") == true, "\(broadcast)")
        let encodedChannel = try #require(channelID.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        let broadcastDeadline = ContinuousClock.now + .seconds(120)
        var broadcasts: [JSONValue] = []
        while ContinuousClock.now < broadcastDeadline {
            broadcasts = try await Self.shell("curl -s '\(control)/pushes?channel_id=\(encodedChannel)'")
                .objectValue?["pushes"]?.arrayValue ?? []
            if !broadcasts.isEmpty { break }
            try await Task.sleep(for: .milliseconds(200))
        }
        #expect(broadcasts.count == 1, "the simulator recorded no broadcast:\n\(dev.log)")

        dev.signal(SIGTERM)
        #expect(try await dev.waitForExit() == 0)
    }

    /// `dev` also runs the FCM simulator with a service account made at start and gives it to
    /// the demo app; the printed Android registration works and the one printed send reaches
    /// the Android device through the simulator too.
    @Test func theAndroidDeviceRegistersAndTheSameSendReachesTheFCMSimulator() async throws {
        let database = try await TestDatabase.create()
        let directory = try TemporaryDirectory.make(prefix: "dev-quickstart-android")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let dev = try OpenPushProcess(["dev"], environment: [
            "OPENPUSH_DATABASE_URL": database.conninfo, "OPENPUSH_LISTEN": "127.0.0.1:0",
        ], workingDirectory: directory)
        defer { dev.signal(SIGTERM) }
        _ = try await dev.waitForLog("and what the FCM simulator accepted")
        _ = try await dev.waitForLog("/messages?token=")
        let log = dev.log
        let register = try Self.command(after: "1. register a device token", in: log)
        let registerAndroid = try Self.command(after: "and an Android device", in: log)
        let send = try Self.command(after: "2. send it a notification", in: log)
        let listAPNs = try Self.command(after: "3. see what the APNs simulator accepted", in: log)
        let listFCM = try Self.command(after: "and what the FCM simulator accepted", in: log)
        #expect(registerAndroid.contains(#""platform": "android""#))

        // The demo app holds the simulator's service account.
        let organizationKey = try #require(log.firstMatch(of: /OPENPUSH_ORG_API_KEY\): (\S+)/)?.1)
        let appID = try #require(send.firstMatch(of: /"app_id": "([^"]+)"/)?.1)
        let base = try #require(send.firstMatch(of: /(http:\/\/[^ ]+)\/notifications/)?.1)
        let app = try await Self.shell("curl -s -H 'Authorization: Key \(organizationKey)' \(base)/apps/\(appID)")
        #expect(app.objectValue?["has_fcm_credentials"] == true, "\(app)")
        #expect(app.objectValue?["fcm_project_id"] == "openpush-demo", "\(app)")

        _ = try await Self.shell(register)
        let registered = try await Self.shell(registerAndroid)
        #expect(registered.objectValue?["created"] == true, "\(registered)")
        #expect(registered.objectValue?["id"]?.stringValue?.hasPrefix("sub_") == true)
        let sent = try await Self.shell(send)
        #expect(sent.objectValue?["id"]?.stringValue?.hasPrefix("msg_") == true, "\(sent)")

        let deadline = ContinuousClock.now + .seconds(120)
        var messages: [JSONValue] = []
        var pushes: [JSONValue] = []
        while ContinuousClock.now < deadline {
            messages = try await Self.shell(listFCM).objectValue?["messages"]?.arrayValue ?? []
            pushes = try await Self.shell(listAPNs).objectValue?["pushes"]?.arrayValue ?? []
            if !messages.isEmpty && !pushes.isEmpty { break }
            try await Task.sleep(for: .milliseconds(200))
        }
        #expect(pushes.count == 1, "the APNs simulator recorded \(pushes.count) pushes:\n\(dev.log)")
        let accepted = try #require(messages.first?.objectValue, "the FCM simulator recorded nothing:\n\(dev.log)")
        #expect(messages.count == 1)
        #expect(accepted["token"]?.stringValue == DevQuickstart.androidToken)
        #expect(accepted["project_id"] == "openpush-demo")
        let notification = accepted["message"]?.objectValue?["notification"]?.objectValue
        #expect(notification?["title"] == "Hello")
        #expect(notification?["body"] == "Your first push from OpenPush")

        dev.signal(SIGTERM)
        #expect(try await dev.waitForExit() == 0)
    }
}
