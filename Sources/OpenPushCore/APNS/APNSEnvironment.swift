/// Which APNs servers a device token belongs to: tokens from a development build are only
/// valid on the sandbox servers, and the other way round.
package enum APNSEnvironment: String, Sendable, Hashable, CaseIterable {
    case production
    case sandbox
}

extension APNSEnvironment {
    /// The APNs servers a device (or channel) registered in `environment` is reached at.
    package init(_ environment: DeviceEnvironment) {
        switch environment {
        case .production: self = .production
        case .sandbox: self = .sandbox
        }
    }
}
