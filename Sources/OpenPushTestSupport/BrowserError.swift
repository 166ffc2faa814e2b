/// Why a browser step failed, worded for the test's failure message.
package struct BrowserError: Error, CustomStringConvertible, Sendable {
    package var description: String

    package init(_ description: String) {
        self.description = description
    }

    static func notInstalled(_ path: String) -> BrowserError {
        BrowserError("\(path) is missing: the browser tests need Debian's chromium and chromium-driver packages, "
            + "which `make test` installs (or: apt-get install chromium chromium-driver)")
    }
}
