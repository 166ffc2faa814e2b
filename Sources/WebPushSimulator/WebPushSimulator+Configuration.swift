package import Foundation

extension WebPushSimulator {
    package struct Configuration: Sendable {
        /// A numeric IP address for both listeners.
        package var host: String
        /// Pushes over HTTP/1.1; 0 picks a free port.
        package var port: UInt16
        /// The control API over HTTP/1.1; `nil` does not publish it (tests may call `control` directly).
        package var controlPort: UInt16?
        /// Threads answering pushes.
        package var threads: Int
        /// Received pushes kept for the control API (the oldest go first).
        package var recordLimit: Int
        /// Keep each push's body (base64url in the listing); off for benchmarks.
        package var recordBodies: Bool
        package var now: @Sendable () -> Date

        package init(host: String = "127.0.0.1", port: UInt16 = 0, controlPort: UInt16? = nil, threads: Int = 2,
                     recordLimit: Int = 50_000, recordBodies: Bool = true, now: @escaping @Sendable () -> Date = Date.init) {
            self.host = host
            self.port = port
            self.controlPort = controlPort
            self.threads = threads
            self.recordLimit = recordLimit
            self.recordBodies = recordBodies
            self.now = now
        }
    }
}
