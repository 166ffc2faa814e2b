/// One SETTINGS parameter (RFC 9113 §6.5.2) the client announces to its peer.
package struct HTTP2Setting: Sendable, Hashable {
    /// The identifier on the wire, e.g. 0x3 for SETTINGS_MAX_CONCURRENT_STREAMS.
    package var identifier: UInt16
    package var value: UInt32

    package init(identifier: UInt16, value: UInt32) {
        self.identifier = identifier
        self.value = value
    }

    package static func headerTableSize(_ value: UInt32) -> HTTP2Setting { .init(identifier: 0x1, value: value) }
    package static func enablePush(_ enabled: Bool) -> HTTP2Setting { .init(identifier: 0x2, value: enabled ? 1 : 0) }
    package static func maxConcurrentStreams(_ value: UInt32) -> HTTP2Setting { .init(identifier: 0x3, value: value) }
    package static func initialWindowSize(_ value: UInt32) -> HTTP2Setting { .init(identifier: 0x4, value: value) }
    package static func maxFrameSize(_ value: UInt32) -> HTTP2Setting { .init(identifier: 0x5, value: value) }
    package static func maxHeaderListSize(_ value: UInt32) -> HTTP2Setting { .init(identifier: 0x6, value: value) }
}
