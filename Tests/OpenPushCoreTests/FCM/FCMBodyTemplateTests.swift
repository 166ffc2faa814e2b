import OpenPushCore
import Testing

/// A body spliced from the template is byte for byte the body written in full for that device.
@Suite struct FCMBodyTemplateTests {
    private func message(token: String, subscriptionID: String, data: JSONObject = ["order": .int(7)]) -> FCMMessage {
        FCMMessage(token: token, title: "Hello \"you\"", body: "Your order\nshipped", fields: AndroidNotificationFields(data: data),
                   notificationID: "msg_1", subscriptionID: subscriptionID)
    }

    @Test func eachDevicesBodyIsTheFullBody() {
        let template = FCMBodyTemplate(message(token: "first", subscriptionID: "sub_first"))
        for (token, subscription) in [("dK3:APA91b_x-y", "sub_0001"), ("quote\"and\\slash", "sub_0002"), ("", "sub_0003")] {
            #expect(template.body(token: token, subscriptionID: subscription)
                    == message(token: token, subscriptionID: subscription).serializedBytes)
        }
    }

    /// An app's data that happens to hold the template's own marker cannot make one device's
    /// token land in another field: the template then writes each body in full.
    @Test func aMarkerInTheAppsDataFallsBackToTheFullBody() {
        let data: JSONObject = ["trap": .string("\u{1}openpush-token\u{1}")]
        let template = FCMBodyTemplate(message(token: "a", subscriptionID: "sub_a", data: data))
        let body = template.body(token: "device-token", subscriptionID: "sub_b")
        #expect(body == message(token: "device-token", subscriptionID: "sub_b", data: data).serializedBytes)
    }
}
