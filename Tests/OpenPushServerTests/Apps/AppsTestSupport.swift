import Foundation
import HTTPServer
import OpenPushCore
import OpenPushDelivery
import OpenPushServer
import OpenPushTestSupport
import Subprocess

/// Keys and requests the apps tests share.
enum AppsTestSupport {
    static let organizationKey = "org-key-for-apps-tests-0001"
    static let organization: HTTPHeaders = ["Authorization": "Key \(organizationKey)"]

    /// An application whose `/apps` routes open with `organizationKey`.
    static func makeApp(now: @escaping @Sendable () -> Double = WallClock.now) async throws -> TestApp {
        try await TestApp.make(configure: { $0.organizationAPIKey = organizationKey }, now: now,
                               routes: AuthenticationProbe.routes)
    }

    /// A fresh private key from the `openssl` command, as PEM: `["-algorithm", "EC", "-pkeyopt",
    /// "ec_paramgen_curve:P-256"]` is what Apple's `.p8` files hold.
    static func privateKeyPEM(_ options: [String]) async throws -> String {
        let output = try await Subprocess.run("openssl", ["genpkey"] + options)
        guard output.status == 0, output.text.contains("-----BEGIN PRIVATE KEY-----") else {
            throw Subprocess.Failure("openssl genpkey failed: \(output.text)")
        }
        return output.text
    }

    static func p256KeyPEM() async throws -> String {
        try await privateKeyPEM(["-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"])
    }
}

/// Routes that exist only in tests, to check a key really opens its app.
enum AuthenticationProbe {
    static let routes: @Sendable (inout Router<RouteHandler>) -> Void = { router in
        router.add(.get, "/apps/{app_id}/probe/rest") { context in
            let principal = try await Authentication.requireRESTKey(appID: context.pathParameter("app_id"), context)
            return .json(["key": .string(principal.keyID)])
        }
        router.add(.get, "/v1/apps/{app_id}/probe/sdk") { context in
            _ = try await Authentication.requireSDKKey(appID: context.pathParameter("app_id"), context)
            return .json(["ok": true])
        }
    }
}

extension TestApp {
    /// The status a REST key gets on its app.
    func restKeyStatus(_ appID: String, _ key: String) async -> Int {
        await request(.get, "/apps/\(appID)/probe/rest", headers: .restKey(key)).status
    }

    func sdkKeyStatus(_ appID: String, _ key: String) async -> Int {
        await request(.get, "/v1/apps/\(appID)/probe/sdk", headers: .sdkKey(key)).status
    }
}
