package import Postgres

/// Where each kind of database work connects. Requests, sends and delivery go through the pool
/// on `pooled` (`OPENPUSH_DATABASE_URL`, possibly PgBouncer in transaction mode); what needs a
/// session of its own — LISTEN, migrations, the delivery partitions' DDL — connects to `direct`
/// (`OPENPUSH_DATABASE_DIRECT_URL`, by default the same URL).
package struct DatabaseEndpoints: Sendable, Equatable {
    package var pooled: String
    package var direct: String

    /// `databaseURL`: the URL the pool uses (`OPENPUSH_DATABASE_URL`, or the embedded cluster's).
    package init(configuration: Configuration, databaseURL: String) {
        pooled = databaseURL
        direct = configuration.databaseDirectURL ?? databaseURL
    }

    /// A direct URL of its own says the pooled one leads through a transaction pooler, so the
    /// pool keeps nothing on its sessions; with one URL the session holds the settings (cheaper).
    package var pooledSettingsScope: PostgresSettingsScope {
        pooled == direct ? .session : .transaction
    }
}
