/// How an app authenticates to APNs (`apps.apns_auth`): a `.p8` signing key (JWT provider
/// tokens) or a client certificate presented on the TLS connection. One at a time.
package enum APNSAuth: String, Sendable, Hashable, CaseIterable {
    case token
    case certificate
}
