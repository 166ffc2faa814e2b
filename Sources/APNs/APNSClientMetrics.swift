import Synchronization

/// Gauges for `/metrics`, summed over every pool of a client.
package struct APNSClientMetrics: Sendable, Hashable {
    /// HTTP/2 connections up (connected, ready or draining).
    package var openConnections: Int
    /// Streams sent and not yet answered.
    package var inFlightStreams: Int
    /// Requests waiting for a free stream.
    package var queuedRequests: Int
    /// Pools open: one per (credential, environment) and event loop holding its connections;
    /// opened by a push, closed when idle or retired.
    package var openPools: Int
}

/// The live counters behind `APNSClientMetrics`, updated by the event loop.
final class APNSClientCounters: Sendable {
    let openConnections = Atomic(0)
    let inFlightStreams = Atomic(0)
    let queuedRequests = Atomic(0)
    let openPools = Atomic(0)
    /// Connections opened since the start (tests check reconnects with it).
    let connectionsOpened = Atomic(0)
}
