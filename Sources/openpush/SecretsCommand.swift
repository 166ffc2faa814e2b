import OpenPushCore
import OpenPushDelivery
import OpenPushServer

/// `openpush secrets rotate`: re-seals every stored `.p8` key and webhook secret with
/// `OPENPUSH_SECRET_KEY`, opening older values with `OPENPUSH_SECRET_KEYS_OLD`. In one
/// transaction: a value that does not open leaves everything as it was.
enum SecretsCommand {
    static let usage = "secrets rotate"

    static func run(_ configuration: Configuration, arguments: [String], logger: Logger) async throws {
        guard arguments == ["rotate"] else { throw CommandLineError(message: "usage: openpush \(usage)") }
        let databaseURL = try Commands.requireDatabaseURL(configuration)
        let services = try ServerBootstrap.makeServices(configuration: configuration, databaseURL: databaseURL, servingHTTP: false)
        let rotation: SealedSecrets.Rotation
        do {
            rotation = try await SealedSecrets.rotate(keyring: configuration.secretKeyring, in: services.database)
        } catch let refusal as SealedSecrets.RotationRefusal {
            await services.database.close()
            throw CommandLineError(message: "secrets rotate: \(refusal)")
        } catch {
            await services.database.close()
            throw error
        }
        await services.database.close()
        Commands.say("""
        sealed with key \(rotation.keyID): \(rotation.resealedKeys) .p8 key(s), \(rotation.resealedVAPIDKeys) VAPID key(s) \
        and \(rotation.resealedWebhookSecrets) webhook secret(s) re-sealed, \
        \(rotation.unchanged) already current\(rotation.resumedApps > 0 ? "; \(rotation.resumedApps) held app(s) resumed" : "")
        """)
    }
}
