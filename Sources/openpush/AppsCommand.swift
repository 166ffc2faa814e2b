import Foundation
import OpenPushCore
import OpenPushDelivery
import OpenPushServer

/// `openpush apps create`: the flags become the body `POST /apps` takes and go through the same
/// checks (`AppFields.read`), so the command and the route cannot disagree about what is valid.
enum AppsCommand {
    static let usage = "apps create --name NAME --bundle-id ID [--p8 FILE --key-id ID --team-id ID] [--env sandbox|production]"

    /// Each flag and the body field it fills.
    static let flags: KeyValuePairs<String, String> = [
        "--name": "name", "--bundle-id": "apns_bundle_id", "--p8": "apns_p8",
        "--key-id": "apns_key_id", "--team-id": "apns_team_id", "--env": "apns_env",
    ]

    static func run(_ configuration: Configuration, arguments: [String], logger: Logger) async throws {
        guard arguments.first == "create" else { throw CommandLineError(message: "usage: openpush \(usage)") }
        // Arguments first: a mistake is reported without touching the database.
        let fields = try createFields(Array(arguments.dropFirst()))
        let databaseURL = try Commands.requireDatabaseURL(configuration)
        let services = try ServerBootstrap.makeServices(configuration: configuration, databaseURL: databaseURL)
        try await ServerBootstrap.migrate(services, logger: logger)
        let created = try await AppStore.create(AppSettings(fields), now: services.now(),
                                                sealing: configuration.secretKeyring, in: services.database)
        await services.database.close()
        Commands.say("""
        app id:        \(created.app.id)
        REST API key:  \(created.restKey)
        SDK key:       \(created.sdkKey)
        (the keys are shown only this once)
        """)
    }

    static func createFields(_ arguments: [String]) throws -> AppFields {
        var body = JSONObject()
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            // `--flag value` or `--flag=value`.
            let parts = argument.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            let flag = parts[0]
            guard let field = flags.first(where: { $0.key == flag })?.value else {
                throw CommandLineError(message: "unknown option '\(flag)' for apps create (usage: openpush \(usage))")
            }
            guard let value = parts.count == 2 ? parts[1] : remaining.popFirst() else {
                throw CommandLineError(message: "\(flag) needs a value")
            }
            guard body[field] == nil else { throw CommandLineError(message: "\(flag) is given twice") }
            body[field] = .string(flag == "--p8" ? try readKeyFile(value) : value)
        }
        for flag in ["--name", "--bundle-id"] where body[field(of: flag)] == nil {
            throw CommandLineError(message: "\(flag) is required (usage: openpush \(usage))")
        }
        let credentials = ["--p8", "--key-id", "--team-id"]
        let given = credentials.filter { body[field(of: $0)] != nil }
        guard given.isEmpty || given.count == credentials.count else {
            throw CommandLineError(message: "--p8, --key-id and --team-id go together")
        }
        do {
            return try AppFields.read(body, for: .create)
        } catch {
            throw CommandLineError(message: error.messages.joined(separator: "; "))
        }
    }

    private static func field(of flag: String) -> String {
        flags.first { $0.key == flag }?.value ?? flag
    }

    private static func readKeyFile(_ path: String) throws -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CommandLineError(message: "--p8: cannot read '\(path)'")
        }
        return String(decoding: data, as: UTF8.self)
    }
}
