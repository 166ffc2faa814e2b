import Foundation
package import OpenPushCore
import Postgres
package import APNs

/// Builds a process's services and HTTP server from its configuration. Shared by `serve`,
/// `dev` and the test harness, so all three run the same code.
package enum ServerBootstrap {
    /// `servingHTTP` false (`openpush worker`): the OpenAPI document and the web pages, which
    /// only HTTP routes serve, are neither read nor parsed (most of a worker's start-up before
    /// its first claim).
    package static func makeServices(configuration: Configuration, databaseURL: String,
                                    now: @escaping @Sendable () -> Double = WallClock.now, servingHTTP: Bool = true)
        throws -> Services
    {
        let resources = try ResourceLocator.resourcesDirectory(configured: configuration.resourcesDirectory)
        let migrations = try Migrator.load(directory: resources + "/migrations")
        let functions = try FunctionFile.load(migrationsDirectory: resources + "/migrations")
        let document = servingHTTP ? try OpenAPIDocument.load(directory: resources + "/openapi").serializedBytes : []
        let webAssets = servingHTTP ? try WebAssets.load(directory: resources + "/web") : WebAssets()
        let endpoints = DatabaseEndpoints(configuration: configuration, databaseURL: databaseURL)
        let pool = PostgresPool(conninfo: endpoints.pooled, size: configuration.databasePoolSize,
                                timeouts: configuration.databaseTimeouts, settingsScope: endpoints.pooledSettingsScope)
        var services = Services(configuration: configuration, database: pool, databaseConninfo: endpoints.direct,
                                migrations: migrations, metrics: Metrics(), openAPIDocument: document, webAssets: webAssets, now: now)
        services.functions = functions
        return services
    }

    /// Applies pending migrations, then the SQL function files, under the advisory lock; safe with
    /// many processes starting at once.
    /// On a connection of its own to the direct URL: a migration may hold locks and run for
    /// minutes, which a transaction pooler's timeouts and pool are not for.
    package static func migrate(_ services: Services, logger: Logger) async throws {
        let direct = PostgresPool(conninfo: services.databaseConninfo, size: 1)
        let applied: [Int]
        do {
            var settings = Migrator.Settings()
            settings.retrying = { step, attempt, pause in
                logger.warning("a migration waited past its lock timeout for a table in use: rolled back, tried again later",
                               ["migration.step": step.description, "migration.attempt": String(attempt),
                                "migration.pause": String(describing: pause)])
            }
            settings.keptNewerFunctions = { version in
                logger.warning("the database has a migration newer than this release: its SQL functions are left as that release defined them",
                               ["migration.version": String(version)])
            }
            applied = try await Migrator(pool: direct, settings: settings).apply(services.migrations, functions: services.functions)
            await direct.close()
        } catch {
            await direct.close()
            throw error
        }
        if applied.isEmpty {
            logger.info("migrations up to date", ["migrations.count": String(services.migrations.count)])
        } else {
            logger.info("applied migrations", ["migrations.versions": applied.map(String.init).joined(separator: ",")])
        }
    }
}

extension ServerBootstrap {
    /// The APNs client for the configured endpoints, and the delivery engine over it.
    package static func makeDeliveryEngine(_ services: Services, logger: Logger) throws -> (DeliveryEngine, APNSClient) {
        let configuration = services.configuration
        let client = try APNSClient(configuration: configuration.apnsClientConfiguration, logger: logger.with("component", "apns"))
        var settings = DeliveryEngine.Settings()
        settings.loops = max(1, configuration.deliveryLoops)
        settings.appJobsInFlight = configuration.deliveryAppJobs
        let engine = DeliveryEngine(services: services, client: client, settings: settings,
                                    logger: logger.with("component", "delivery"))
        return (engine, client)
    }
}
