import Foundation
import OpenPushCore
import OpenPushDelivery
import OpenPushServer
import WebPushSimulator

extension Commands {
    /// Unless push-service hosts are configured, `dev` delivers browser pushes to a local Web
    /// Push simulator (allowed as the only push-service host; dev allows private addresses),
    /// with one browser subscription made for the quickstart.
    static func startDevWebPushSimulator(_ configuration: inout Configuration) throws
        -> (simulator: WebPushSimulator, subscription: DevQuickstart.WebSubscription)?
    {
        guard ProcessInfo.processInfo.environment["OPENPUSH_WEB_PUSH_HOSTS"] == nil else { return nil }
        let simulator = WebPushSimulator(.init(controlPort: 0))
        try simulator.start()
        let path = "/push/quickstart"
        let subscription = try simulator.subscribe(path: path)
        configuration.webPushHosts = [.exact(simulator.configuration.host)]
        configuration.webhooksAllowPrivate = true
        // The simulator refuses a push without a VAPID `sub`, as Apple's service does.
        if configuration.webPushSubject == nil { configuration.webPushSubject = "mailto:dev@openpush.localhost" }
        return (simulator, DevQuickstart.WebSubscription(
            endpoint: simulator.endpoint(path: path), p256dh: subscription.p256dh, auth: subscription.auth,
            pushesURL: "\(simulator.controlURL ?? "")/pushes?path=\(path)"))
    }
}
