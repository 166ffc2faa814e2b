import Crypto
import Foundation
import OpenPushCore
import OpenPushDelivery
import WebPushSimulator

/// `openpush webpush-sim`: the local browser push service (Web Push over HTTP/1.1, VAPID
/// checked, payloads decrypted for the subscriptions it knows) and its control API, until
/// SIGINT or SIGTERM.
enum WebPushSimCommand {
    static let usage = "webpush-sim [--port N] [--control-port N] [--measure-encryption N]"

    struct Options: Equatable {
        var port: UInt16 = 2210
        var controlPort: UInt16 = 2211
        /// Encrypt this many pushes, print the CPU each took, and exit (`bench/webpush.sh`).
        var measureEncryption: Int?
    }

    static func run(arguments: [String], logger: Logger) async throws {
        let options = try parse(arguments)
        if let count = options.measureEncryption {
            Commands.say(try measureEncryption(count))
            return
        }
        let simulator = WebPushSimulator(.init(port: options.port, controlPort: options.controlPort))
        try simulator.start()
        Commands.say(banner(simulator))
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
            case "--control-port": options.controlPort = try reader.port("--control-port")
            case "--measure-encryption":
                let text = try reader.value("--measure-encryption")
                guard let count = Int(text), count > 0 else {
                    throw CommandLineError(message: "--measure-encryption: '\(text)' is not a positive number")
                }
                options.measureEncryption = count
            default:
                throw CommandLineError(message: "unknown option '\(flag)' for webpush-sim (usage: openpush \(usage))")
            }
        }
        if options.port != 0, options.port == options.controlPort {
            throw CommandLineError(message: "--port and --control-port must differ")
        }
        return options
    }

    /// The CPU one push's encryption costs (RFC 8291: a fresh key pair, ECDH, HKDF, AES-GCM), as
    /// the transport does it, for a plaintext of a typical notification's size.
    private static func measureEncryption(_ count: Int) throws -> String {
        let browser = try P256KeyPair.generate()
        let secret = SecureRandom.bytes(16)
        let plaintext = [UInt8](repeating: UInt8(ascii: "x"), count: 300)
        let started = cpuSeconds()
        for _ in 0..<count {
            _ = try WebPushEncryption.encrypt(plaintext, receiverPublicKey: browser.publicKey, authSecret: secret)
        }
        let perPush = (cpuSeconds() - started) / Double(count) * 1e6
        return "encryption: \(String(format: "%.1f", perPush)) µs CPU per push (\(count) pushes of \(plaintext.count) bytes)"
    }

    private static func cpuSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    private static func banner(_ simulator: WebPushSimulator) -> String {
        let control = simulator.controlURL ?? ""
        return """
        Web Push simulator listening on \(simulator.origin) (HTTP/1.1; every path is a subscription's endpoint)
          decryptor checked against RFC 8291 Appendix A
          OpenPush needs OPENPUSH_WEB_PUSH_HOSTS=\(simulator.configuration.host) and OPENPUSH_WEBHOOKS_ALLOW_PRIVATE=1
        control API on \(control) : POST|GET /subscriptions, GET|DELETE /pushes, POST|DELETE /answers,
          POST|DELETE /holds, GET /counters, POST /reset
          try: curl -s -X POST \(control)/subscriptions
        """
    }
}
