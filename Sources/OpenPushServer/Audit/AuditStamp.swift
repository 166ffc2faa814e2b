package import OpenPushCore

/// Who is making an administrative change, and in which request: what every audit log entry of
/// the change carries. Routes make it from their caller; stores write it with the change.
package struct AuditStamp: Sendable, Equatable {
    package var actor: AuditActor
    package var requestID: String?

    package init(actor: AuditActor, requestID: String?) {
        self.actor = actor
        self.requestID = requestID
    }

    /// A change made at the machine (`openpush apps create`, the embedded demo app): no key, no request.
    package static let commandLine = AuditStamp(actor: .commandLine, requestID: nil)
}

extension RouteContext {
    /// The stamp of a change this request makes as `actor`.
    func auditStamp(_ actor: AuditActor) -> AuditStamp {
        AuditStamp(actor: actor, requestID: request.requestID)
    }
}
