import Testing
import OpenPushCore

/// The app-side contract's task notifications ("Task notifications": visible and silent), sent
/// as `POST /notifications` bodies and built for one device, compared field by field.
@Suite struct NotificationPayloadConformanceTests {
    static func build(_ body: JSONObject) throws -> APNSRequest {
        let send = try NotificationSendParser.parse(body).get()
        return try NotificationPayload.build(NotificationPushInput(
            send: send, title: send.headings?["en"], subtitle: send.subtitle?["en"], body: send.contents?["en"],
            bundleID: "com.example.tasks", apnsID: "0b7d2c1e-8f3a-4e65-a9d0-3c4b5e6f7a81", expiration: 0)).get()
    }

    @Test func theVisibleTaskNotification() throws {
        let request = try Self.build([
            "app_id": "app_1", "include_subscription_ids": ["sub_1"],
            "headings": ["en": "Claude Code"], "subtitle": ["en": "Task done"], "contents": ["en": "Add dark mode support"],
            "ios_sound": "default", "thread_id": "key_01jb2k3v9d", "ios_category": "TASK", "ios_interruption_level": "active",
            "collapse_id": "tsk_01jb2m9x4e7q",
            "data": ["event": "task.updated", "task_id": "tsk_01jb2m9x4e7q", "key_id": "key_01jb2k3v9d"],
        ])
        let expected = try JSONValue.parse("""
            {
              "aps": {
                "alert": { "title": "Claude Code", "subtitle": "Task done", "body": "Add dark mode support" },
                "sound": "default",
                "thread-id": "key_01jb2k3v9d",
                "category": "TASK",
                "interruption-level": "active"
              },
              "event": "task.updated",
              "task_id": "tsk_01jb2m9x4e7q",
              "key_id": "key_01jb2k3v9d"
            }
            """)
        #expect(request.payload == expected)
        #expect(request.headers.pushType == .alert)
        #expect(request.headers.topic == "com.example.tasks")
        #expect(request.headers.collapseID == "tsk_01jb2m9x4e7q")
    }

    @Test func theSilentTaskNotification() throws {
        let request = try Self.build([
            "app_id": "app_1", "include_subscription_ids": ["sub_1"], "content_available": true,
            "data": ["event": "task.updated", "task_id": "tsk_1", "key_id": "key_1"],
        ])
        let expected = try JSONValue.parse("""
            { "aps": { "content-available": 1 }, "event": "task.updated", "task_id": "tsk_1", "key_id": "key_1" }
            """)
        #expect(request.payload == expected)
        #expect(request.headers.pushType == .background)
        #expect(request.headers.priority == 5)
        #expect(request.headers.topic == "com.example.tasks")
    }
}
