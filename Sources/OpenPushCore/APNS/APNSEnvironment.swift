/// Which APNs servers a device token belongs to: tokens from a development build are only
/// valid on the sandbox servers, and the other way round.
public enum APNSEnvironment: String, Sendable, Hashable, CaseIterable {
    case production
    case sandbox
}
