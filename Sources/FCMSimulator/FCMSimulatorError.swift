import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A simulator setup or socket failure, or a service account key it cannot use.
package struct FCMSimulatorError: Error, Sendable, CustomStringConvertible {
    package var description: String

    init(_ description: String) {
        self.description = description
    }

    static func errno(_ context: String) -> FCMSimulatorError {
        FCMSimulatorError("\(context): \(String(cString: strerror(Glibc.errno)))")
    }
}
