extension NotificationSend {
    /// The push services whose devices the sender left out (`isIos: false`, `isAndroid: false`,
    /// `isAnyWeb: false` or every browser's flag `false`).
    package var excludedServices: Set<PushService> {
        PushService.excluded(apple: appleExcluded, android: androidExcluded, web: web.excludesEveryBrowser)
    }

    /// The browsers whose subscriptions the sender left out (`isChromeWeb: false` and the like).
    package var excludedBrowsers: Set<WebPushBrowser> { web.excludedBrowsers }

    /// Both switches off: the send reaches nobody, whatever its audience.
    package var excludesEveryService: Bool { excludedServices.count == PushService.allCases.count }
}

extension PushService {
    /// The services OneSignal's platform switches leave out.
    package static func excluded(apple: Bool, android: Bool, web: Bool = false) -> Set<PushService> {
        var excluded: Set<PushService> = []
        if apple { excluded.insert(.apns) }
        if android { excluded.insert(.fcm) }
        if web { excluded.insert(.webPush) }
        return excluded
    }
}
