/// One response header field. Pseudo-headers (`:status`) are not included: the status has its
/// own field in `HTTP2Event.response`.
package struct HTTP2Header: Sendable, Hashable {
    package var name: String
    package var value: String

    package init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}
