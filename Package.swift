// swift-tools-version:6.0
import PackageDescription

/// One settings array for every target: Swift 6 mode, explicit existentials, and
/// internal imports so a wrapper's C module never leaks out of it.
let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "OpenPush",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "openpush", targets: ["openpush"]),
    ],
    targets: [
        // C libraries from Debian: module maps and shim headers only.
        .systemLibrary(name: "CPostgres", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(name: "CNghttp2", pkgConfig: "libnghttp2", providers: [.apt(["libnghttp2-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // glibc declarations Swift's Glibc module hides (posix_spawn extensions).
        .systemLibrary(name: "CSystem"),

        // Child processes without descriptor leaks (pg_ctl, tools, tests).
        .target(name: "Subprocess", dependencies: ["CSystem"], swiftSettings: swiftSettings),

        // One thin, safe wrapper per C library.
        .target(name: "Postgres", dependencies: ["CPostgres", "Subprocess"], swiftSettings: swiftSettings),
        .target(name: "HTTPServer", dependencies: ["CMicroHTTPD"], swiftSettings: swiftSettings),
        .target(name: "HTTP2", dependencies: ["CNghttp2"], swiftSettings: swiftSettings),
        .target(name: "Crypto", dependencies: ["COpenSSL"], swiftSettings: swiftSettings),
        // Outbound HTTP (webhooks) over libcurl's multi interface.
        .target(name: "HTTPClient", dependencies: ["CCurl"], swiftSettings: swiftSettings),
        // Streaming gzip over zlib (exports' CSV files).
        .target(name: "Gzip", dependencies: ["CZlib"], swiftSettings: swiftSettings),

        // The epoll runtime under the APNs client: epoll, wake signal, monotonic clock, non-blocking TCP/TLS sockets, DNS.
        .target(name: "EventLoop", dependencies: ["Crypto"], swiftSettings: swiftSettings),
        // The APNs client over HTTP/2: TLS or h2c, JWT, connection pools on a few event loops.
        .target(name: "APNs", dependencies: ["EventLoop", "HTTP2", "Crypto", "OpenPushCore"], swiftSettings: swiftSettings),
        // The local APNs simulator (`openpush apns-sim`, tests): an HTTP/2 server that answers like Apple.
        // COpenSSL directly: a client certificate's UID and Apple's topics extension.
        .target(name: "APNsSimulator", dependencies: ["EventLoop", "HTTP2", "Crypto", "OpenPushCore", "COpenSSL"],
                swiftSettings: swiftSettings),
        // The local FCM simulator (`openpush fcm-sim`, tests): FCM HTTP v1 sends over h2c, Google's
        // OAuth token endpoint and a control API over HTTP/1.1.
        .target(name: "FCMSimulator", dependencies: ["EventLoop", "HTTP2", "HTTPServer", "Crypto", "OpenPushCore"], swiftSettings: swiftSettings),
        // The local browser push service (`openpush webpush-sim`, tests): Web Push over HTTP/1.1,
        // VAPID checked, payloads decrypted like a browser, and a control API.
        .target(name: "WebPushSimulator", dependencies: ["HTTPServer", "Crypto", "OpenPushCore"], swiftSettings: swiftSettings),

        // Pure domain logic: no I/O.
        .target(name: "OpenPushCore", swiftSettings: swiftSettings, linkerSettings: [.linkedLibrary("m")]),

        // The delivery engine and what `openpush worker` runs: services, expansion, the events
        // outbox, the webhook dispatcher, maintenance, secrets, metrics. No HTTP server.
        .target(
            name: "OpenPushDelivery",
            dependencies: ["OpenPushCore", "Postgres", "APNs", "Crypto", "HTTPClient", "Subprocess", "Gzip"],
            swiftSettings: swiftSettings
        ),
        // The HTTP application: one folder per feature with its routes, service and store.
        .target(
            name: "OpenPushServer",
            dependencies: ["OpenPushDelivery", "OpenPushCore", "Postgres", "HTTPServer", "HTTP2", "Crypto", "APNs", "Subprocess", "HTTPClient"],
            swiftSettings: swiftSettings
        ),
        .executableTarget(name: "openpush", dependencies: ["OpenPushServer", "OpenPushDelivery", "HTTPClient", "APNsSimulator", "FCMSimulator",
                                                              "WebPushSimulator"],
                          swiftSettings: swiftSettings),
        // `bench/apns-client.sh`: the APNs client alone against the simulator.
        .executableTarget(name: "apns-client-bench", dependencies: ["APNs", "Crypto", "OpenPushCore"],
                          path: "bench/apns-client", swiftSettings: swiftSettings),

        // Shared test harness: temporary PostgreSQL, in-process requests, manual clock.
        .target(
            name: "OpenPushTestSupport",
            dependencies: [
                "OpenPushServer", "OpenPushDelivery", "Postgres", "HTTPServer", "OpenPushCore", "Subprocess", "APNs", "APNsSimulator",
                "Crypto", "HTTPClient",
            ],
            swiftSettings: swiftSettings
        ),

        .testTarget(name: "OpenPushCoreTests", dependencies: ["OpenPushCore"], swiftSettings: swiftSettings),
        .testTarget(name: "PostgresTests", dependencies: ["Postgres", "OpenPushTestSupport"], swiftSettings: swiftSettings),
        // CNghttp2 and COpenSSL directly: an h2c/TLS test server, and signatures checked independently.
        // The simulator against the client, and an `openpush apns-sim` child process.
        .testTarget(
            name: "APNsTests", dependencies: ["APNs", "APNsSimulator", "Crypto", "HTTP2", "OpenPushCore", "CNghttp2", "COpenSSL"],
            swiftSettings: swiftSettings),
        // A raw HTTP/2 client checks the simulator's answers without the APNs client in between.
        .testTarget(
            name: "APNsSimulatorTests", dependencies: ["APNsSimulator", "Crypto", "HTTP2", "OpenPushCore"],
            swiftSettings: swiftSettings),
        // A raw HTTP/2 client for sends, HTTPClient for the token endpoint and control API, and
        // COpenSSL directly to make and sign with a service account's RSA key.
        .testTarget(
            name: "FCMSimulatorTests", dependencies: ["FCMSimulator", "Crypto", "HTTP2", "HTTPClient", "OpenPushCore", "COpenSSL"],
            swiftSettings: swiftSettings),
        // HTTPClient posts pushes and reads the control API; Crypto signs and encrypts them.
        .testTarget(
            name: "WebPushSimulatorTests", dependencies: ["WebPushSimulator", "Crypto", "HTTPClient", "OpenPushCore"],
            swiftSettings: swiftSettings),
        .testTarget(name: "HTTPServerTests", dependencies: ["HTTPServer"], swiftSettings: swiftSettings),
        .testTarget(name: "GzipTests", dependencies: ["Gzip"], swiftSettings: swiftSettings),
        // The client against a local HTTPServer.
        .testTarget(name: "HTTPClientTests", dependencies: ["HTTPClient", "HTTPServer"], swiftSettings: swiftSettings),
        // CNghttp2 directly: the tests pair the client with an nghttp2 server session in memory.
        .testTarget(name: "HTTP2Tests", dependencies: ["HTTP2", "CNghttp2"], swiftSettings: swiftSettings),
        // COpenSSL directly: the tests generate keys and verify signatures through an independent path.
        .testTarget(name: "CryptoTests", dependencies: ["Crypto", "COpenSSL"], swiftSettings: swiftSettings),
        .testTarget(
            name: "OpenPushServerTests",
            dependencies: [
                "OpenPushServer", "OpenPushDelivery", "OpenPushTestSupport", "Postgres", "HTTPServer", "OpenPushCore", "APNs",
                "APNsSimulator", "FCMSimulator", "WebPushSimulator", "Crypto", "Subprocess", "HTTPClient", "Gzip",
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
