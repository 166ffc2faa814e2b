/// The bounds every export lives within.
package enum ExportLimits {
    /// A file is kept this long after its request, as OneSignal keeps its (3 days).
    package static let retention: Double = 3 * 24 * 3600
    /// Exports of one app waiting or in production at once; one more is a `429`.
    package static let pendingPerApp = 3
    /// Rows read per query: memory holds one page, whatever the app's size.
    package static let pageSize = 1000
    /// Compressed bytes per stored chunk.
    package static let chunkBytes = 256 * 1024
    /// A producer's lease, renewed with every chunk; a process that dies leaves the job to
    /// another after this.
    package static let leaseSeconds = 60
    /// A job that failed (or whose producer died) this many times is given up as `failed`.
    package static let maxAttempts = 3
    /// `extra_fields` entries, and each one's length.
    package static let extraFields = 32
}
