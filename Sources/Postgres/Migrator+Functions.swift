extension Migrator {
    /// Runs every function file, in the given order, in one transaction under the advisory lock
    /// (so two processes starting at once do not replace a function at the same moment), with
    /// the migrations' lock timeout and retries. A file that fails rolls them all back, keeping
    /// the definitions the database had, and the error names the file.
    ///
    /// Left alone when the database has a migration newer than `newestKnown`: a newer release
    /// has run (a rolling deploy, or a rollback), and its functions may need its schema.
    /// Returns whether the files ran.
    @discardableResult
    public func define(_ functions: [FunctionFile], newestKnown: Int) async throws -> Bool {
        let functions = FunctionFile.sorted(functions)
        let newestApplied = try await retryingBusyLocks(.functions) { connection in
            try Self.prepareTable(connection)
            let newest = try connection.query("SELECT COALESCE(max(version), 0) AS newest FROM schema_migrations")
                .first?.decode("newest", as: Int.self) ?? 0
            guard newest <= newestKnown else { return newest }
            for file in functions {
                do {
                    try connection.execute(script: file.sql)
                } catch var error as PostgresError {
                    error.message = "SQL function file \(FunctionFile.folder)/\(file.name): \(error.message)"
                    throw error
                }
            }
            return newest
        }
        guard newestApplied <= newestKnown else {
            settings.keptNewerFunctions(newestApplied)
            return false
        }
        return true
    }
}
