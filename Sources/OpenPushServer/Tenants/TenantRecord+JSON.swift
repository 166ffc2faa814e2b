import OpenPushCore
import OpenPushDelivery

extension TenantRecord {
    /// A tenant as the organization sees it: never its REST key.
    var json: JSONObject {
        [
            "id": .string(id),
            "app_id": .string(appID),
            "name": name.map(JSONValue.string) ?? .null,
            "link_code": .string(linkCode),
            "linked_devices": .int(Int64(linkedDevices)),
            "created_at": .string(Timestamp.iso8601(createdAt)),
        ]
    }
}
