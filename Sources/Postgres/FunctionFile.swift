import Foundation

/// One file of `migrations/functions/`: the one current definition of a SQL function, or of a
/// few that belong together, which the migrator runs again on every start after the numbered
/// migrations (`Migrator.apply(_:functions:)`).
///
/// The rules a file keeps:
/// - Only statements that may run any number of times: `CREATE OR REPLACE FUNCTION`. Tables,
///   indexes and the triggers that call a function belong to numbered migrations.
/// - Files run in the order of their names, all in one transaction; a function may call one
///   defined earlier in its own file or in a file whose name sorts before it.
/// - A body, volatility or language changes in the file alone. A signature (argument types,
///   return type, `OUT` columns) cannot change in place: a numbered migration drops the old one
///   (`DROP FUNCTION f(old argument types)`), then the file defines the new one.
/// - Numbered migrations already applied are history and are not edited: the definitions they
///   hold are what a fresh database runs through before the files replace them. A migration
///   whose backfill needs a new function creates it, and the file holds it from then on.
public struct FunctionFile: Sendable, Equatable {
    /// The file's name, `openpush_claim_job.sql`: errors name it, and it sets the order.
    public var name: String
    public var sql: String

    public init(name: String, sql: String) {
        self.name = name
        self.sql = sql
    }

    /// The folder of `migrations/` that holds them.
    public static let folder = "functions"

    /// Loads every `*.sql` file of `<migrations>/functions`, sorted by name. Other files are
    /// ignored; a `.sql` name other than letters, digits, `_` and `-` is an error.
    public static func load(migrationsDirectory: String) throws -> [FunctionFile] {
        let directory = (migrationsDirectory as NSString).appendingPathComponent(folder)
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            throw MigrationError("cannot read the SQL functions directory \(directory): \(error.localizedDescription)")
        }
        var files: [FunctionFile] = []
        for name in names where name.hasSuffix(".sql") {
            guard isValid(fileName: name) else {
                throw MigrationError("bad SQL function file name \(folder)/\(name): expected name.sql (letters, digits, _ and -)")
            }
            let path = (directory as NSString).appendingPathComponent(name)
            guard let sql = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw MigrationError("cannot read SQL function file \(folder)/\(name) as UTF-8")
            }
            files.append(FunctionFile(name: name, sql: sql))
        }
        return sorted(files)
    }

    /// By name, in byte order: the same on every machine, whatever its locale.
    static func sorted(_ files: [FunctionFile]) -> [FunctionFile] {
        files.sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) }
    }

    static func isValid(fileName: String) -> Bool {
        guard fileName.hasSuffix(".sql") else { return false }
        let stem = fileName.dropLast(4)
        return !stem.isEmpty && stem.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }
    }
}
