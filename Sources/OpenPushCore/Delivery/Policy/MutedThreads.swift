/// The `thread_id`s a device muted: their alerts do not go to it (recorded `suppressed`,
/// reason `muted`). Pure.
public enum MutedThreads {
    /// Most threads one device may mute.
    public static let maximumCount = 100
    /// A muted `thread_id` is 1 to 64 characters: APNs groups by it and apps use short ids.
    public static let maximumLength = 64

    /// Whether an alert of `threadID` is muted on a device muting `muted`. An alert with no
    /// thread is never muted.
    public static func mutes(_ muted: Set<String>, threadID: String?) -> Bool {
        guard let threadID else { return false }
        return muted.contains(threadID)
    }
}
