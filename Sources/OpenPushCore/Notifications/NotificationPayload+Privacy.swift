extension AlertPrivacy.Shape {
    /// Whether `apns_alert` (localization keys and arguments) and `summary_arg` go with the push:
    /// they word the notification as much as its texts, so a push that hides them sends neither.
    var keepsWording: Bool { self == .full || self == .blankFallback }

    /// Whether `os_data` (the tap URL, attachment URLs, button labels) goes beside `aps`: an
    /// ids-only push carries no custom data but the request's `data`.
    var sendsOneSignalData: Bool { self != .idsOnly }
}
