import Foundation
import OpenPushCore
import OpenPushDelivery
import OpenPushServer

/// `openpush apps create`: the flags become the body `POST /apps` takes and go through the same
/// checks (`AppFields.read`), so the command and the route cannot disagree about what is valid.
enum AppsCommand {
    static let usage = """
        apps create --name NAME --bundle-id ID [--p8 FILE --key-id ID --team-id ID | --p12 FILE [--p12-password PASSWORD]] \
        [--env sandbox|production]
        """

    /// Each flag and the body field it fills.
    static let flags: KeyValuePairs<String, String> = [
        "--name": "name", "--bundle-id": "apns_bundle_id", "--p8": "apns_p8",
        "--key-id": "apns_key_id", "--team-id": "apns_team_id", "--env": "apns_env",
        "--p12": "apns_p12", "--p12-password": "apns_p12_password",
    ]

    static func run(_ configuration: Configuration, arguments: [String], logger: Logger) async throws {
        guard arguments.first == "create" else { throw CommandLineError(message: "usage: openpush \(usage)") }
        // Arguments first: a mistake is reported without touching the database.
        let fields = try createFields(Array(arguments.dropFirst()), now: WallClock.now())
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

    /// The body the flags make, read as `POST /apps` reads it; a certificate is checked against
    /// `now` and the bundle id as the route checks it.
    static func createFields(_ arguments: [String], now: Double) throws -> AppFields {
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
            switch flag {
            case "--p8": body[field] = .string(String(decoding: try readFile(value, for: flag), as: UTF8.self))
            case "--p12": body[field] = .string(Data(try readFile(value, for: flag)).base64EncodedString())
            default: body[field] = .string(value)
            }
        }
        for flag in ["--name", "--bundle-id"] where body[field(of: flag)] == nil {
            throw CommandLineError(message: "\(flag) is required (usage: openpush \(usage))")
        }
        let credentials = ["--p8", "--key-id", "--team-id"]
        let given = credentials.filter { body[field(of: $0)] != nil }
        guard given.isEmpty || given.count == credentials.count else {
            throw CommandLineError(message: "--p8, --key-id and --team-id go together")
        }
        if body[field(of: "--p12")] != nil, !given.isEmpty {
            throw CommandLineError(message: "--p12 and --p8 exclude each other: an app authenticates to APNs with a certificate or a .p8 key")
        }
        if body[field(of: "--p12-password")] != nil, body[field(of: "--p12")] == nil {
            throw CommandLineError(message: "--p12-password needs --p12")
        }
        do {
            var fields = try AppFields.read(body, for: .create)
            try fields.settleCertificate(currentBundleID: nil, currentTopics: nil, now: now)
            return fields
        } catch {
            throw CommandLineError(message: error.messages.joined(separator: "; "))
        }
    }

    private static func field(of flag: String) -> String {
        flags.first { $0.key == flag }?.value ?? flag
    }

    private static func readFile(_ path: String, for flag: String) throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CommandLineError(message: "\(flag): cannot read '\(path)'")
        }
        return Array(data)
    }
}
