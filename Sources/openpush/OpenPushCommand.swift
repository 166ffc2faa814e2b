import Foundation
import OpenPushCore
import OpenPushDelivery
import OpenPushServer

/// `openpush`: wires configuration, database and HTTP server together; no logic of its own.
@main
struct OpenPushCommand {
    static func main() async {
        // A peer that hangs up mid-write must cost an error, not the process.
        signal(SIGPIPE, SIG_IGN)
        TerminationSignal.install()
        var arguments = Array(CommandLine.arguments.dropFirst())
        let command = arguments.isEmpty ? "help" : arguments.removeFirst()
        let configuration: Configuration
        do {
            configuration = try Configuration.fromEnvironment(ProcessInfo.processInfo.environment)
        } catch {
            fail("openpush: \(error)", code: 2)
        }
        let logger = Logger(label: "openpush", level: configuration.logLevel, handler: StandardErrorLogHandler())
        do {
            switch command {
            case "serve":
                try await Commands.serve(configuration, arguments: arguments, logger: logger)
            case "worker":
                try await Commands.worker(configuration, logger: logger)
            case "migrate":
                try await Commands.migrate(configuration, logger: logger)
            case "apps":
                try await AppsCommand.run(configuration, arguments: arguments, logger: logger)
            case "secrets":
                try await SecretsCommand.run(configuration, arguments: arguments, logger: logger)
            case "apns-sim":
                try await ApnsSimCommand.run(arguments: arguments, logger: logger)
            case "fcm-sim":
                try await FcmSimCommand.run(arguments: arguments, logger: logger)
            case "webpush-sim":
                try await WebPushSimCommand.run(arguments: arguments, logger: logger)
            case "dev":
                try await Commands.dev(configuration, arguments: arguments, logger: logger)
            case "help", "--help", "-h":
                print(Commands.usage)
            default:
                fail("openpush: unknown command '\(command)'\n\n\(Commands.usage)", code: 2)
            }
        } catch let error as CommandLineError {
            fail("openpush: \(error.message)", code: 2)
        } catch {
            fail("openpush: \(error)", code: 1)
        }
    }

    static func fail(_ message: String, code: Int32) -> Never {
        FileHandle.standardError.write(Data((message + "\n").utf8))
        exit(code)
    }
}
