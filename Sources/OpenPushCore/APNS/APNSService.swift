/// Which of Apple's hosts a request goes to: the push hosts (device pushes and channel
/// broadcasts) or the channel management hosts, which Apple runs apart, on their own ports.
package enum APNSService: String, Sendable, Hashable, CaseIterable {
    case push
    case channels
}
