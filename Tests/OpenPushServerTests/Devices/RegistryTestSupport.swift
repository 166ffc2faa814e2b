import Synchronization
import Testing
import HTTPServer
import OpenPushCore
import OpenPushServer
import OpenPushTestSupport

/// A clock the registry tests move by hand, so session times are exact.
final class RegistryClock: Sendable {
    private let seconds: Mutex<Double>

    init(_ start: Double = 1_800_000_000) { seconds = Mutex(start) }

    var now: @Sendable () -> Double { { self.seconds.withLock { $0 } } }

    func advance(by delta: Double) { seconds.withLock { $0 += delta } }
}

enum Registry {
    /// A distinct 64-hex-character device token per seed.
    static func token(_ seed: Int) -> String {
        let hex = String(seed, radix: 16)
        return String(repeating: "a", count: 64 - hex.count) + hex
    }
}

extension TestApp {
    /// `POST /v1/apps/{app_id}/subscriptions` with the app's SDK key.
    func registerDevice(_ app: CreatedApp, _ body: JSONObject) async -> TestResponse {
        await request(.post, "/v1/apps/\(app.app.id)/subscriptions", headers: .sdkKey(app.sdkKey), json: .object(body))
    }

    /// Registers a device and returns its id.
    func deviceID(_ app: CreatedApp, _ body: JSONObject) async throws -> String {
        let response = await registerDevice(app, body)
        try #require(response.status == 201 || response.status == 200, "registration failed: \(response.text)")
        return try #require(response.json?.objectValue?["id"]?.stringValue)
    }

    /// A request with a JSON body when there is one.
    func send(_ method: HTTPMethod, _ path: String, headers: HTTPHeaders, json: JSONValue?) async -> TestResponse {
        if let json { return await request(method, path, headers: headers, json: json) }
        return await request(method, path, headers: headers)
    }

    func subscription(_ app: CreatedApp, _ id: String) async -> TestResponse {
        await request(.get, "/apps/\(app.app.id)/subscriptions/\(id)", headers: .restKey(app.restKey))
    }
}
