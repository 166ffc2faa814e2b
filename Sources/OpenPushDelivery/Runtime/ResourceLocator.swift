import Foundation

/// Finds the directory that holds `migrations/` and `openapi/openapi.json`: the configured one,
/// else the first match walking up from the working directory and from the executable.
package enum ResourceLocator {
    package struct NotFound: Error, CustomStringConvertible {
        package var description: String {
            "cannot find migrations/ and openapi/openapi.json; set OPENPUSH_RESOURCES_DIR to the directory that holds them"
        }
    }

    package static func resourcesDirectory(configured: String?) throws -> String {
        if let configured {
            guard holdsResources(configured) else { throw NotFound() }
            return configured
        }
        let executable = URL(fileURLWithPath: CommandLine.arguments.first ?? ".").resolvingSymlinksInPath()
        let starts = [FileManager.default.currentDirectoryPath, executable.deletingLastPathComponent().path]
        for start in starts {
            var directory = URL(fileURLWithPath: start)
            for _ in 0..<6 {
                if holdsResources(directory.path) { return directory.path }
                for candidate in ["share/openpush"] where holdsResources(directory.appendingPathComponent(candidate).path) {
                    return directory.appendingPathComponent(candidate).path
                }
                directory.deleteLastPathComponent()
            }
        }
        throw NotFound()
    }

    static func holdsResources(_ directory: String) -> Bool {
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        return manager.fileExists(atPath: directory + "/migrations", isDirectory: &isDirectory) && isDirectory.boolValue
            && manager.fileExists(atPath: directory + "/openapi/openapi.json")
    }
}
