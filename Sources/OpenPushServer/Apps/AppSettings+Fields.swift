package import OpenPushCore
import OpenPushDelivery

extension AppSettings {
    /// The settings of a new app from a checked create body (a cleared field is simply unset).
    package init(_ fields: AppFields) {
        self.init(name: fields.name, apnsEnv: fields.apnsEnv, apnsP8: fields.apnsP8.newValue,
                  apnsKeyID: fields.apnsKeyID.newValue, apnsTeamID: fields.apnsTeamID.newValue,
                  apnsBundleID: fields.apnsBundleID.newValue, apnsWatchBundleID: fields.apnsWatchBundleID.newValue,
                  sharedDemo: fields.sharedDemo, liveActivityAutoEndMinutes: fields.liveActivityAutoEndMinutes.newValue,
                  onesignalAlias: fields.onesignalAlias,
                  liveActivityUpdateIntervalSeconds: fields.liveActivityUpdateIntervalSeconds,
                  widgetPushIntervalSeconds: fields.widgetPushIntervalSeconds)
        alertGates = fields.alertGates
        fcmServiceAccount = fields.fcmServiceAccount.newValue
        apnsCertificate = fields.apnsCertificate.newValue
        defaultPrivacyText = fields.defaultPrivacyText
        webPushVAPIDKey = fields.webPushVAPIDKey
        webPushSubject = fields.webPushSubject.newValue
    }
}
