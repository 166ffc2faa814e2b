extension NotificationSend {
    /// The push services whose devices the sender left out (`isIos: false`, `isAndroid: false`).
    package var excludedServices: Set<PushService> {
        PushService.excluded(apple: appleExcluded, android: androidExcluded)
    }

    /// Both switches off: the send reaches nobody, whatever its audience.
    package var excludesEveryService: Bool { excludedServices.count == PushService.allCases.count }
}

extension PushService {
    /// The services OneSignal's platform switches leave out.
    package static func excluded(apple: Bool, android: Bool) -> Set<PushService> {
        var excluded: Set<PushService> = []
        if apple { excluded.insert(.apns) }
        if android { excluded.insert(.fcm) }
        return excluded
    }
}
