import OpenPushCore

/// One endpoint of the client: an environment's push or channel management host.
struct APNSRoute: Hashable, Sendable {
    var environment: APNSEnvironment
    var service: APNSService
}
