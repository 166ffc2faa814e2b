/// One SETTINGS parameter (RFC 9113 §6.5.2) the client announces to its peer.
public struct HTTP2Setting: Sendable, Hashable {
    /// The identifier on the wire, e.g. 0x3 for SETTINGS_MAX_CONCURRENT_STREAMS.
    public var identifier: UInt16
    public var value: UInt32

    public init(identifier: UInt16, value: UInt32) {
        self.identifier = identifier
        self.value = value
    }

    public static func headerTableSize(_ value: UInt32) -> HTTP2Setting { .init(identifier: 0x1, value: value) }
    public static func enablePush(_ enabled: Bool) -> HTTP2Setting { .init(identifier: 0x2, value: enabled ? 1 : 0) }
    public static func maxConcurrentStreams(_ value: UInt32) -> HTTP2Setting { .init(identifier: 0x3, value: value) }
    public static func initialWindowSize(_ value: UInt32) -> HTTP2Setting { .init(identifier: 0x4, value: value) }
    public static func maxFrameSize(_ value: UInt32) -> HTTP2Setting { .init(identifier: 0x5, value: value) }
    public static func maxHeaderListSize(_ value: UInt32) -> HTTP2Setting { .init(identifier: 0x6, value: value) }
}
