import APNsSimulator
import Crypto
import Foundation
import HTTPServer
import OpenPushCore
import OpenPushDelivery
import OpenPushServer

/// `openpush apns-sim`: the local APNs simulator on one port and its control API (HTTP/1.1)
/// on another, until SIGINT or SIGTERM.
enum ApnsSimCommand {
    static let usage = "apns-sim [--port N] [--control-port N] [--tls --cert-out FILE [--client-ca FILE]] [--max-rate N] [--sandbox] (--key KEYID=P8FILE ... | --accept-any-token)"

    struct Options: Equatable {
        var port: UInt16 = 2197
        var controlPort: UInt16 = 2198
        var tls = false
        var certificatePath: String?
        /// PEM CA certificates client certificates are verified against (TLS only).
        var clientCAPath: String?
        /// Key id → path of the .p8 file.
        var keyFiles: [String: String] = [:]
        var acceptAnyToken = false
        /// Pushes answered per second at most, over every connection (`Configuration.maxRate`).
        var maxRate: Double?
        /// Answers as APNs' sandbox endpoint does, with `apns-unique-id` (`Configuration.sandbox`).
        var sandbox = false
    }

    static func run(arguments: [String], logger: Logger) async throws {
        let options = try parse(arguments)
        var keys: [String: [UInt8]] = [:]
        for (keyID, path) in options.keyFiles {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw CommandLineError(message: "--key \(keyID): cannot read '\(path)'")
            }
            do {
                keys[keyID] = try P256SigningKey(pem: String(decoding: data, as: UTF8.self)).publicKeyDER
            } catch {
                throw CommandLineError(message: "--key \(keyID): '\(path)' is not an APNs .p8 key: \(error)")
            }
        }
        let simulator = try APNSSimulator(.init(
            port: options.port,
            transport: options.tls ? .tls(certificatePath: options.certificatePath) : .cleartext,
            clientCAPath: options.clientCAPath,
            providerKeys: keys,
            acceptAnyToken: options.acceptAnyToken,
            maxRate: options.maxRate,
            sandbox: options.sandbox))
        try simulator.start()
        let control = HTTPServer(
            configuration: HTTPServerConfiguration(host: "127.0.0.1", port: options.controlPort, threadPoolSize: 1),
            responder: ApnsSimControlResponder(simulator: simulator))
        do {
            try control.start()
        } catch {
            simulator.stop()
            throw error
        }
        Commands.say(banner(simulator, options: options, controlPort: control.port))
        let signal = await TerminationSignal.wait()
        logger.info("shutting down", ["signal": String(signal)])
        await control.shutdown()
        simulator.stop()
    }

    static func parse(_ arguments: [String]) throws -> Options {
        var options = Options()
        var reader = OptionReader(arguments)
        while let flag = reader.next() {
            switch flag {
            case "--port": options.port = try reader.port("--port")
            case "--control-port": options.controlPort = try reader.port("--control-port")
            case "--cert-out": options.certificatePath = try reader.value("--cert-out")
            case "--tls": options.tls = true
            case "--client-ca": options.clientCAPath = try reader.value("--client-ca")
            case "--accept-any-token": options.acceptAnyToken = true
            case "--sandbox": options.sandbox = true
            case "--max-rate":
                let text = try reader.value("--max-rate")
                guard let rate = Double(text), rate.isFinite, rate >= 1 else {
                    throw CommandLineError(message: "--max-rate: '\(text)' is not a number of pushes a second (at least 1)")
                }
                options.maxRate = rate
            case "--key":
                let pair = try reader.value("--key").split(separator: "=", maxSplits: 1).map(String.init)
                guard pair.count == 2, !pair[0].isEmpty, !pair[1].isEmpty else {
                    throw CommandLineError(message: "--key takes KEYID=P8FILE")
                }
                guard options.keyFiles[pair[0]] == nil else { throw CommandLineError(message: "--key \(pair[0]) is given twice") }
                options.keyFiles[pair[0]] = pair[1]
            default:
                throw CommandLineError(message: "unknown option '\(flag)' for apns-sim (usage: openpush \(usage))")
            }
        }
        if options.tls != (options.certificatePath != nil) {
            throw CommandLineError(message: "--tls and --cert-out FILE go together (the clients must trust the certificate)")
        }
        if options.clientCAPath != nil, !options.tls {
            throw CommandLineError(message: "--client-ca needs --tls: client certificates come with TLS")
        }
        if options.keyFiles.isEmpty && !options.acceptAnyToken && options.clientCAPath == nil {
            throw CommandLineError(message: "give --key KEYID=P8FILE (repeatable), --accept-any-token or --client-ca FILE")
        }
        if !options.keyFiles.isEmpty && options.acceptAnyToken {
            throw CommandLineError(message: "--key and --accept-any-token exclude each other")
        }
        if options.port != 0, options.port == options.controlPort {
            throw CommandLineError(message: "--port and --control-port must differ")
        }
        return options
    }

    private static func banner(_ simulator: APNSSimulator, options: Options, controlPort: UInt16) -> String {
        let control = "http://127.0.0.1:\(controlPort)"
        var lines = ["APNs simulator listening on \(simulator.endpoint) (\(options.tls ? "TLS, ALPN h2" : "h2c, prior knowledge"))"]
        if let path = options.certificatePath { lines.append("  certificate to trust: \(path)") }
        if options.sandbox { lines.append("  plays the sandbox endpoint (--sandbox): answers carry apns-unique-id") }
        if let path = options.clientCAPath { lines.append("  client certificates verified against: \(path)") }
        if let rate = options.maxRate {
            lines.append("  accept rate capped at \(Int(rate)) pushes/s (--max-rate): pushes over it wait for their answer")
        }
        lines.append(options.acceptAnyToken
            ? "  provider tokens: not checked (--accept-any-token)"
            : "  provider tokens: ES256, key ids \(options.keyFiles.keys.sorted().joined(separator: ", "))")
        lines.append("  token prefixes: dead → 410 Unregistered, bad0 → 400 BadDeviceToken, 5105 → slow, 4290 → 429, 5000 → 500, 5030 → 503")
        lines.append("  broadcast channels: POST|GET|DELETE /1/apps/{bundle}/channels, GET /1/apps/{bundle}/all-channels, POST /4/broadcasts/apps/{bundle}")
        lines.append("control API on \(control): GET|DELETE /pushes, GET|POST /behaviours, DELETE /behaviours/{prefix}, POST /goaway, POST /reset")
        lines.append("  channels: GET /channels, POST /channels/behaviours, DELETE /channels/behaviours/{channel_id}")
        lines.append("  try: curl \(control)/pushes")
        return lines.joined(separator: "\n")
    }
}
