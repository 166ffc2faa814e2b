/// When an app's deliveries are paused because APNs (or the planner) refused its credentials,
/// which settings can fix it. A `PUT /apps/{id}` that changes one of them lifts the pause; one
/// that changes only unrelated settings (the name, say) does not. Pure.
package enum CredentialPause {
    /// The app settings a pause can depend on.
    package enum Field: Sendable, Hashable, CaseIterable {
        case p8, keyID, teamID, environment, bundleID, watchBundleID
    }

    private static let token: Set<Field> = [.p8, .keyID, .teamID]
    private static let topic: Set<Field> = [.bundleID, .watchBundleID]

    /// The settings whose change can fix a pause for `reason` (an APNs reason, or the planner's
    /// `MissingTopic`). An unknown reason — a `403` Apple may add — depends on every setting.
    package static func fields(fixing reason: String?) -> Set<Field> {
        switch reason.map({ APNSReason(rawValue: $0) }) {
        case APNSReason.missingTopic?:
            return topic
        case APNSReason.badCertificateEnvironment?:
            return token.union([.environment])
        case APNSReason.missingProviderToken?, APNSReason.invalidProviderToken?, APNSReason.unrelatedKeyIDInToken?,
             APNSReason.badCertificate?:
            return token
        default:
            return Set(Field.allCases)
        }
    }

    /// Whether changing `changed` lifts a pause whose last reason was `reason`.
    package static func isLifted(reason: String?, changed: Set<Field>) -> Bool {
        !fields(fixing: reason).isDisjoint(with: changed)
    }
}

extension AppFields {
    /// The pause-relevant settings this update touches (sets or clears).
    package var changedCredentialFields: Set<CredentialPause.Field> {
        var changed: Set<CredentialPause.Field> = []
        if !apnsP8.isKeep { changed.insert(.p8) }
        if !apnsKeyID.isKeep { changed.insert(.keyID) }
        if !apnsTeamID.isKeep { changed.insert(.teamID) }
        if apnsEnv != nil { changed.insert(.environment) }
        if !apnsBundleID.isKeep { changed.insert(.bundleID) }
        if !apnsWatchBundleID.isKeep { changed.insert(.watchBundleID) }
        return changed
    }
}
