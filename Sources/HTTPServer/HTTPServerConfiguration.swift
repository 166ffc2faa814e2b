package struct HTTPServerConfiguration: Sendable {
    /// A numeric address or a host name; the first resolved address is bound.
    package var host: String = "127.0.0.1"
    /// 0 binds an ephemeral port; read it back from `HTTPServer.port`.
    package var port: UInt16 = 8080
    package var threadPoolSize: Int = 4
    package var maxBodySize: Int = 1 << 20
    /// Idle seconds before a connection is closed.
    package var connectionTimeout: Int = 60
    /// How long `shutdown()` waits for in-flight requests.
    package var shutdownGrace: Duration = .seconds(10)

    package init(
        host: String = "127.0.0.1",
        port: UInt16 = 8080,
        threadPoolSize: Int = 4,
        maxBodySize: Int = 1 << 20,
        connectionTimeout: Int = 60,
        shutdownGrace: Duration = .seconds(10)
    ) {
        self.host = host
        self.port = port
        self.threadPoolSize = threadPoolSize
        self.maxBodySize = maxBodySize
        self.connectionTimeout = connectionTimeout
        self.shutdownGrace = shutdownGrace
    }
}
