import FCMSimulator
import Foundation
import OpenPushCore
import OpenPushDelivery
import OpenPushServer

extension Commands {
    /// Unless FCM endpoints are configured, `dev` delivers Android pushes to a local FCM
    /// simulator that knows one service account made for this start; the demo app gets that
    /// account as its FCM credentials, and the simulator's control API shows what it accepted.
    static func startDevFCMSimulator(_ configuration: inout Configuration) throws
        -> (simulator: FCMSimulator, account: FCMServiceAccount)?
    {
        let environment = ProcessInfo.processInfo.environment
        guard environment["OPENPUSH_FCM_URL"] == nil, environment["OPENPUSH_FCM_TOKEN_URL"] == nil else { return nil }
        let account = try DevDemoApp.fcmServiceAccount()
        let simulator = try FCMSimulator(.init(controlPort: 0, serviceAccounts: [
            .init(clientEmail: account.clientEmail, privateKeyID: account.privateKeyID, projectID: account.projectID,
                  privateKeyPEM: account.privateKey),
        ]))
        try simulator.start()
        configuration.fcmURL = simulator.endpoint
        configuration.fcmTokenURL = simulator.tokenURL
        return (simulator, account)
    }
}
