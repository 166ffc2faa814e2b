import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A simulator setup or socket failure.
package struct APNSSimulatorError: Error, Sendable, CustomStringConvertible {
    package var description: String

    init(_ description: String) {
        self.description = description
    }

    static func errno(_ context: String) -> APNSSimulatorError {
        APNSSimulatorError("\(context): \(String(cString: strerror(Glibc.errno)))")
    }
}
