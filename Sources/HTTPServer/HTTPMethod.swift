/// An HTTP request method. An open set: any token the client sends is representable.
package struct HTTPMethod: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    package let rawValue: String

    package init(rawValue: String) {
        self.rawValue = rawValue
    }

    package static let get = HTTPMethod(rawValue: "GET")
    package static let post = HTTPMethod(rawValue: "POST")
    package static let put = HTTPMethod(rawValue: "PUT")
    package static let delete = HTTPMethod(rawValue: "DELETE")
    package static let patch = HTTPMethod(rawValue: "PATCH")
    package static let head = HTTPMethod(rawValue: "HEAD")
    package static let options = HTTPMethod(rawValue: "OPTIONS")

    package var description: String { rawValue }
}
