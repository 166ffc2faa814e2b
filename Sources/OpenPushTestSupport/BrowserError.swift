/// Why a browser step failed, worded for the test's failure message.
public struct BrowserError: Error, CustomStringConvertible, Sendable {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }

    static func notInstalled(_ path: String) -> BrowserError {
        BrowserError("\(path) is missing: the browser tests need Debian's chromium and chromium-driver packages, "
            + "which `make test` installs (or: apt-get install chromium chromium-driver)")
    }
}
