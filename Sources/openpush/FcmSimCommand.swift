import FCMSimulator
import Foundation
import OpenPushCore
import OpenPushDelivery
import OpenPushServer

/// `openpush fcm-sim`: the local FCM simulator (FCM HTTP v1 sends over h2c), its OAuth token
/// endpoint and its control API (both HTTP/1.1), until SIGINT or SIGTERM.
enum FcmSimCommand {
    static let usage = "fcm-sim [--port N] [--token-port N] [--control-port N] --service-account KEYFILE ..."

    struct Options: Equatable {
        var port: UInt16 = 2199
        var tokenPort: UInt16 = 2200
        var controlPort: UInt16 = 2201
        /// Paths of service account key files (JSON), in the order given.
        var serviceAccountFiles: [String] = []
    }

    static func run(arguments: [String], logger: Logger) async throws {
        let options = try parse(arguments)
        var accounts: [FCMSimulator.ServiceAccount] = []
        for path in options.serviceAccountFiles {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw CommandLineError(message: "--service-account: cannot read '\(path)'")
            }
            do {
                accounts.append(try FCMSimulator.ServiceAccount(json: Array(data)))
            } catch {
                throw CommandLineError(message: "--service-account '\(path)': \(error)")
            }
        }
        let simulator = try FCMSimulator(.init(
            port: options.port, tokenPort: options.tokenPort, controlPort: options.controlPort, serviceAccounts: accounts))
        try simulator.start()
        Commands.say(banner(simulator, accounts: accounts))
        let signal = await TerminationSignal.wait()
        logger.info("shutting down", ["signal": String(signal)])
        await simulator.stop()
    }

    static func parse(_ arguments: [String]) throws -> Options {
        var options = Options()
        var reader = OptionReader(arguments)
        while let flag = reader.next() {
            switch flag {
            case "--port": options.port = try reader.port("--port")
            case "--token-port": options.tokenPort = try reader.port("--token-port")
            case "--control-port": options.controlPort = try reader.port("--control-port")
            case "--service-account": options.serviceAccountFiles.append(try reader.value("--service-account"))
            default:
                throw CommandLineError(message: "unknown option '\(flag)' for fcm-sim (usage: openpush \(usage))")
            }
        }
        if options.serviceAccountFiles.isEmpty {
            throw CommandLineError(message: "give --service-account KEYFILE (a Google service account key, JSON; repeatable)")
        }
        let fixed = [options.port, options.tokenPort, options.controlPort].filter { $0 != 0 }
        if Set(fixed).count != fixed.count {
            throw CommandLineError(message: "--port, --token-port and --control-port must differ")
        }
        return options
    }

    private static func banner(_ simulator: FCMSimulator, accounts: [FCMSimulator.ServiceAccount]) -> String {
        let control = simulator.controlURL ?? ""
        var lines = ["FCM simulator listening on \(simulator.endpoint) (h2c, prior knowledge; OPENPUSH_FCM_URL)"]
        lines.append("  token endpoint on \(simulator.tokenURL) (HTTP/1.1; OPENPUSH_FCM_TOKEN_URL)")
        for account in accounts {
            lines.append("  service account: \(account.clientEmail) (project \(account.projectID), key id \(account.privateKeyID))")
        }
        lines.append("control API on \(control) : GET|DELETE /messages, POST /tokens/{token}/unregister, POST|DELETE /failures,")
        lines.append("  POST /access_tokens/revoke, GET /counters, POST /reset")
        lines.append("  try: curl \(control)/messages")
        return lines.joined(separator: "\n")
    }
}
