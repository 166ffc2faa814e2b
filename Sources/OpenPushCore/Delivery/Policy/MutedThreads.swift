/// The `thread_id`s a device muted: their alerts do not go to it (recorded `suppressed`,
/// reason `muted`). Pure.
package enum MutedThreads {
    /// Most threads one device may mute.
    package static let maximumCount = 100
    /// A muted `thread_id` is 1 to 64 characters: APNs groups by it and apps use short ids.
    package static let maximumLength = 64

    /// Whether an alert of `threadID` is muted on a device muting `muted`. An alert with no
    /// thread is never muted.
    package static func mutes(_ muted: Set<String>, threadID: String?) -> Bool {
        guard let threadID else { return false }
        return muted.contains(threadID)
    }
}
