/// One response header field. Pseudo-headers (`:status`) are not included: the status has its
/// own field in `HTTP2Event.response`.
public struct HTTP2Header: Sendable, Hashable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}
