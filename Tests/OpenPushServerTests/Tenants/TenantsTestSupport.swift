import Testing
import HTTPServer
import OpenPushCore
import OpenPushDelivery
import OpenPushServer
import OpenPushTestSupport

/// A shared demo app with the organization key open, and the steps of its tenant flow.
struct SharedDemo {
    let app: TestApp
    let shared: CreatedApp

    var appID: String { shared.app.id }
    var tenantsPath: String { "/apps/\(appID)/tenants" }

    /// A tenant as `POST /apps/{app_id}/tenants` answered it.
    struct Tenant {
        var id: String
        var restKey: String
        var linkCode: String
    }

    /// A device registered and linked to a tenant.
    struct Device {
        var token: String
        var subscriptionID: String
        var deviceKey: String
    }

    static func make(now: @escaping @Sendable () -> Double = WallClock.now) async throws -> SharedDemo {
        let app = try await AppsTestSupport.makeApp(now: now)
        let shared = try await app.createApp(AppSettings(name: "Shared demo", apnsBundleID: "com.example.demo", sharedDemo: true))
        return SharedDemo(app: app, shared: shared)
    }

    func createTenant(_ name: String = "Acme") async throws -> Tenant {
        let response = await app.request(.post, tenantsPath, headers: AppsTestSupport.organization, json: ["name": .string(name)])
        try #require(response.status == 201, "tenant creation failed: \(response.text)")
        let body = try #require(response.json?.objectValue)
        return Tenant(id: try #require(body["id"]?.stringValue), restKey: try #require(body["rest_api_key"]?.stringValue),
                      linkCode: try #require(body["link_code"]?.stringValue))
    }

    /// `POST /v1/apps/{app_id}/devices/link`, with a device key when given.
    func link(token: String, code: String, deviceKey: String? = nil, sdkKey: String? = nil) async -> TestResponse {
        await app.request(.post, "/v1/apps/\(appID)/devices/link", headers: Self.native(sdkKey ?? shared.sdkKey, deviceKey),
                          json: ["token": .string(token), "code": .string(code)])
    }

    /// Registers a device with the SDK key, then links it to `tenant`.
    func linkedDevice(_ seed: Int, to tenant: Tenant, externalID: String? = nil) async throws -> Device {
        let token = Registry.token(seed)
        var registration: JSONObject = ["token": .string(token)]
        if let externalID { registration["external_id"] = .string(externalID) }
        let subscriptionID = try await app.deviceID(shared, registration)
        let linked = await link(token: token, code: tenant.linkCode)
        try #require(linked.status == 200, "link failed: \(linked.text)")
        let deviceKey = try #require(linked.json?.objectValue?["device_key"]?.stringValue)
        return Device(token: token, subscriptionID: subscriptionID, deviceKey: deviceKey)
    }

    /// A `/v1` call for a device: the shared SDK key plus, when given, its device key.
    func native(_ path: String, _ body: JSONValue, deviceKey: String?) async -> TestResponse {
        await app.request(.post, "/v1/apps/\(appID)\(path)", headers: Self.native(shared.sdkKey, deviceKey), json: body)
    }

    static func native(_ sdkKey: String, _ deviceKey: String?) -> HTTPHeaders {
        var headers = HTTPHeaders.sdkKey(sdkKey)
        if let deviceKey { headers.add(name: "X-OP-Device-Key", value: deviceKey) }
        return headers
    }

    /// The device's Live Activity with an update token, registered through the native route.
    func registerActivity(_ activityID: String, on device: Device) async throws {
        let response = await native("/live-activities", [
            "token": .string(device.token), "activity_id": .string(activityID), "activity_type": "Delivery",
            "update_token": .string(String(repeating: "c", count: 64)),
        ], deviceKey: device.deviceKey)
        try #require(response.status == 200, "activity registration failed: \(response.text)")
    }
}
