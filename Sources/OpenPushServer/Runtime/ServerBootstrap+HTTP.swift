package import HTTPServer
package import OpenPushDelivery

/// Only `serve` and `dev` listen, so starting the HTTP server stays beside the routes.
extension ServerBootstrap {
    package static func startHTTP(application: OpenPushApplication) throws -> HTTPServer {
        let configuration = application.services.configuration
        var http = HTTPServerConfiguration()
        http.host = configuration.listenHost
        http.port = configuration.listenPort
        http.threadPoolSize = configuration.httpThreads
        http.maxBodySize = configuration.maxBodyBytes
        let server = HTTPServer(configuration: http, responder: application)
        try server.start()
        return server
    }
}
